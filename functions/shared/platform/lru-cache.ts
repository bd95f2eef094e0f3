/**
 * A bounded map whose entries expire. At capacity the least recently used entry goes first: a Map
 * iterates in insertion order, so moving an entry to the end on every hit keeps the oldest use first.
 */
export class ExpiringLruCache<Value> {
  readonly #entries = new Map<string, { value: Value; expiresAt: number }>();

  /**
   * @param capacity most entries held at once
   * @param ttlMs how long an entry lives after it is set; 0 keeps nothing
   */
  constructor(
    readonly capacity: number,
    readonly ttlMs: number,
  ) {}

  /** The live value for `key`, which becomes the most recently used; expired entries are dropped. */
  get(key: string, now = Date.now()): Value | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for the TTL, evicting the least recently used entry when full. */
  set(key: string, value: Value, now = Date.now()): void {
    this.#entries.delete(key);
    if (this.ttlMs <= 0 || this.capacity <= 0) return;
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
