import { describe, expect, it } from 'vitest';
import { checkReplayEvents, checkReplayRate } from './webhooks.replay.js';

/** The error checkReplayRate throws, or null when the replay may go on. */
function refusal(replays: number, retryAfter: number, perHour: number): unknown {
  try {
    checkReplayRate({ replays, retry_after: retryAfter }, perHour);
    return null;
  } catch (error) {
    return error;
  }
}

describe('checkReplayRate', () => {
  it("when the replays counted reach the hour's limit, then the replay goes on", () => {
    expect(refusal(3, 1200, 3)).toBeNull();
  });

  it('when they pass it, then 429 names the seconds left in the hour', () => {
    expect(refusal(4, 1200, 3)).toMatchObject({
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      retryAfter: 1200,
    });
  });

  it('when the hour ends as it is counted, then the wait named is a second', () => {
    expect(refusal(4, 0, 3)).toMatchObject({ status: 429, retryAfter: 1 });
  });
});

describe('checkReplayEvents', () => {
  const check = (events: number, matched: number) => () =>
    checkReplayEvents({ events, retry_after: 600 }, matched, 10);

  it("when the replay's events fit in what remains of the hour, then it goes on", () => {
    expect(check(4, 6)).not.toThrow();
  });

  it('when they do not, then 429 says how many remain', () => {
    expect(check(4, 7)).toThrow(expect.objectContaining({ status: 429, retryAfter: 600 }));
    expect(check(4, 7)).toThrow(/6 olay kaldı/);
    expect(check(12, 1)).toThrow(/0 olay kaldı/);
  });
});
