// The commands of members.cli.ts, against the read model, with the services of the CLIs'
// composition root (gateway/src/cli-services.ts).
import type { OpenCliServices } from '../../cli-services.js';
import { CliError } from '../../cli/operator-cli.js';
import { terminalJson } from '../../cli/terminal-text.js';
import { cliOperator } from '../operators/operator-audit.js';
import { formatTable } from '../clients/table.js';
import { eraseAs } from './erasure.service.js';
import { parseMemberId, recipientsAs, reportAs, type Recipient } from './member-data.service.js';
import { USAGE, type MembersCliArgs } from './members.usage.js';

const recipientsTable = (recipients: Recipient[]) =>
  recipients.length === 0
    ? '(no client has received this member)'
    : formatTable(
        ['CLIENT', 'CLASSES', 'FIRST', 'LAST'],
        recipients.map((r) => [
          r.client_key,
          r.classes.join(','),
          r.first_at.toISOString(),
          r.last_at.toISOString(),
        ]),
      );

export async function runCommand(args: MembersCliArgs, open: OpenCliServices): Promise<void> {
  if (!['recipients', 'report', 'erase'].includes(args.command))
    throw new CliError(args.command ? `unknown command "${args.command}"` : USAGE);
  const memberId = parseMemberId(args.id);
  const services = open();
  const { db } = services;
  if (args.command === 'erase') {
    const receipt = await eraseAs(await services.erasures(), cliOperator(), memberId, args.reason);
    console.log(
      args.json
        ? terminalJson(receipt)
        : `member ${memberId} erased at ${receipt.erased_at.toISOString()}; told: ` +
            (receipt.notified.length > 0 ? receipt.notified.join(', ') : 'no client'),
    );
    return;
  }
  if (args.command === 'recipients') {
    const recipients = await recipientsAs(db, cliOperator(), memberId);
    console.log(args.json ? terminalJson(recipients) : recipientsTable(recipients));
    return;
  }
  const report = await reportAs(db, cliOperator(), memberId);
  console.log(
    args.json
      ? terminalJson(report)
      : [
          `member ${memberId}`,
          report.member
            ? formatTable(
                ['FIELD', 'VALUE'],
                Object.entries(report.member).map(([k, v]) => [k, String(v)]),
              )
            : '(no longer in the read model)',
          `kept: ${report.kept.webhook_events} webhook events, ${report.kept.member_write_audit} member-write audit records`,
          'recipients:',
          recipientsTable(report.recipients),
        ].join('\n'),
  );
}
