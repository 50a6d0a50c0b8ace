// Text a partner wrote (a URL, a description, its server's answer) on an operator's terminal.
// A terminal acts on control characters: an ESC sequence can clear the screen, set the title,
// hide or rewrite lines, so each one is shown as a \uXXXX escape instead, as JSON writes it.

// C0, DEL, C1 (U+009B alone starts a sequence on some terminals), and the bidirectional marks and
// line separators that reorder or break what is shown.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export const escapeControls = (text: string) => text.replace(UNSAFE, escape);

/** JSON for a terminal: JSON.stringify escapes C0 but writes C1 and the bidi marks as they are. */
export const terminalJson = (value: unknown) => escapeControls(JSON.stringify(value));
