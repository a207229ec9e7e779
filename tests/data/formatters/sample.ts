// A small event bus, written for the oracle tests (generics, arrows, optional chaining, classes).
import { readFile } from 'fs/promises';
import type { Stats } from "fs";

export type Handler<T> = (event: T) => void | Promise<void>;

interface Options { "maxListeners"?: number; name: string }

export class Bus<E extends { type: string }> {
  private handlers: Map<string, Handler<E>[]> = new Map;
  constructor(private readonly options: Options = { maxListeners: 10, name: 'bus' }) {}

  on(type: E['type'], handler: Handler<E>): () => void {
    const list = this.handlers.get(type) ?? []; if (list.length >= (this.options.maxListeners ?? 10)) { throw new Error(`too many listeners for ${type} on ${this.options.name}, the limit is ${this.options.maxListeners}`); }
    list.push(handler); this.handlers.set(type, list);
    return () => { this.handlers.set(type, (this.handlers.get(type) || []).filter(h => h !== handler)); };
  }

  async emit(event: E): Promise<number> {
    const list = this.handlers.get(event.type) || [];
    for (const handler of list) await handler(event);
    return list.length * 2 + (list.length > 0 ? 1 : 0);
  }
}

export async function loadConfig(path: string, stats?: Stats): Promise<Record<string, unknown>> {
  const text = await readFile(path, 'utf8');
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return { ...parsed, size: stats?.size ?? text.length, "loaded-at": Date.now(), ok: !!parsed && (parsed.a || parsed.b) };
}

export const double = (x: number) => x * 2, triple = (x: number): number => { return x * 3 };
