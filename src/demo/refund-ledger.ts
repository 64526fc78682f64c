/**
 * The demo's refunds, recorded once per idempotency key: what the demo
 * agents (demo-agent.ts, claude-demo-agent.ts) refund through.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface RefundRecord {
  idempotencyKey: string;
  inboxId: string;
  order: string;
  approvalId: string;
  at: number;
}

/**
 * A stand-in for a payments API: an append-only JSON-lines file that
 * performs each idempotency key once. A run repeated after a crash (same
 * events, same key) finds its key and does nothing. Runs of one inbox never
 * overlap (the lease), so check-then-append needs no lock for one key.
 */
export class RefundLedger {
  constructor(readonly file: string) {}

  /** Performs the refund unless its key was seen; true when performed now. */
  async refund(record: RefundRecord): Promise<boolean> {
    const text = await this.read();
    if (parseRecords(text).some((r) => r.idempotencyKey === record.idempotencyKey)) return false;
    await mkdir(dirname(this.file), { recursive: true });
    // After a line torn by a crash, start a fresh line so this record parses.
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    await appendFile(this.file, `${separator}${JSON.stringify(record)}\n`);
    return true;
  }

  async records(): Promise<RefundRecord[]> {
    return parseRecords(await this.read());
  }

  private async read(): Promise<string> {
    try {
      return await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  }
}

function parseRecords(text: string): RefundRecord[] {
  const records: RefundRecord[] = [];
  for (const line of text.split('\n')) {
    try {
      if (line.trim() !== '') records.push(JSON.parse(line) as RefundRecord);
    } catch {
      // A line torn by a crash mid-append: that refund did not complete.
    }
  }
  return records;
}
