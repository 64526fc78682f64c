/** Where the bench's fakes listen: the family (bench/adapters.ts) passes their URLs to `vigil serve` in its environment. */
export function fakeAnthropicUrl(): string {
  return required('FAKE_ANTHROPIC_URL');
}

export function fakeOpenAIUrl(): string {
  return required('FAKE_OPENAI_URL');
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`the bench's agents need ${name}`);
  return value;
}
