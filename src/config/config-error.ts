/** A config that cannot be used as given: the CLI exits 2. Its own module so the CLI can name it without loading zod. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly issues: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(issues.length === 0 ? message : `${message}\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options);
    this.name = 'ConfigError';
  }
}
