/**
 * Answers of the payment provider kept for a few seconds, one look-up in flight per key: a
 * page polling the checkout status, or a tester reloading the payout page, does not become one
 * Stripe API call per request. A failed look-up is not kept.
 */
export class ProviderLookupCache {
  private readonly entries = new Map<string, { at: number; value: Promise<unknown> }>();

  constructor(private readonly ttlMs: number) {}

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value as Promise<T>;
    if (this.entries.size > 10_000) this.entries.clear();
    const value = load();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
