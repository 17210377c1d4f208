// A bounded map that forgets its least recently used entry: an instance's memory of codes, rollups and
// visitors, where a FIFO would forget a hot entry as soon as enough cold ones pass by. Map keeps insertion
// order, so an entry used again is moved to the end and the first one is the least recently used.

export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  /** The bound; lowered, the map forgets down to it as entries are set (a test's small memory). */
  constructor(public max: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets the value as just used, forgetting the least recently used entry when full. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    while (this.entries.size >= Math.max(1, this.max)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
