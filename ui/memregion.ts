// The client's copy of a memory region (a global buffer or a CTA's shared
// memory), page by page, with which bytes it knows; and the size of an
// element type.

export const PAGE = 4096;

interface Page {
  data: Uint8Array;
  known: Uint8Array;
  nknown: number;
}

/** The client's copy of one memory region (a global buffer or a CTA's shared memory). */
export class MemRegion {
  private pages = new Map<number, Page>();

  constructor(readonly key: string, readonly size: number) {}

  private page(i: number): Page {
    let p = this.pages.get(i);
    if (!p) {
      p = { data: new Uint8Array(PAGE), known: new Uint8Array(PAGE), nknown: 0 };
      this.pages.set(i, p);
    }
    return p;
  }

  write(offset: number, bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const a = offset + i;
      if (a < 0 || a >= this.size) continue;
      const p = this.page(Math.floor(a / PAGE));
      const o = a % PAGE;
      p.data[o] = bytes[i];
      if (!p.known[o]) {
        p.known[o] = 1;
        p.nknown++;
      }
    }
  }

  /** Whether every byte of [offset, offset+n) is known. */
  has(offset: number, n: number): boolean {
    const end = Math.min(this.size, offset + n);
    for (let a = offset; a < end; ) {
      const p = this.pages.get(Math.floor(a / PAGE));
      if (!p) return false;
      const o = a % PAGE;
      const stop = Math.min(PAGE, o + (end - a));
      if (p.nknown === PAGE) {
        a += stop - o;
        continue;
      }
      for (let k = o; k < stop; k++) if (!p.known[k]) return false;
      a += stop - o;
    }
    return true;
  }

  byte(a: number): number | undefined {
    const p = this.pages.get(Math.floor(a / PAGE));
    if (!p) return undefined;
    const o = a % PAGE;
    return p.known[o] ? p.data[o] : undefined;
  }

  /** Copies [offset, offset+n) into out; returns false if some byte is unknown. */
  read(offset: number, out: Uint8Array): boolean {
    let ok = true;
    for (let i = 0; i < out.length; i++) {
      const b = this.byte(offset + i);
      if (b === undefined) ok = false;
      out[i] = b ?? 0;
    }
    return ok;
  }

  invalidate(): void {
    this.pages.clear();
  }
}

export function elemSize(t: string): number {
  const m = /(\d+)/.exec(t);
  if (!m) return 4;
  let n = Number(m[1]) / 8;
  if (t.endsWith("x2")) n *= 2;
  return Math.max(1, n);
}
