// The selected warp's registers and predicates in the model: a state's
// registers merged (with the lanes each update changed), an `inspect`
// reply's taken whole, and the page of a paged register file they hold.

import type { Model } from "./model";
import type { RegValues } from "./proto";
import { mask32 } from "./format";

/** Takes the page of a paged register file that r carries: a new page
 * replaces the registers held (it arrives complete). Reports whether the
 * page changed. */
export function takePage(model: Model, r: RegValues): boolean {
  const page = r.page ?? 0;
  if (r.names) model.pageRegs = r.names;
  if (r.predNames) model.pagePreds = r.predNames;
  if (page === model.regPage) return false;
  model.regPage = page;
  if (!r.names) model.pageRegs = page === 0 ? model.loaded?.regs ?? [] : [];
  if (!r.predNames) model.pagePreds = page === 0 ? model.loaded?.preds ?? [] : [];
  model.regs.clear();
  model.preds.clear();
  model.regsOf = null;
  return true;
}

/** Applies the registers of a state; reports whether their page changed. */
export function applyRegs(model: Model, r: RegValues | null, full: boolean): boolean {
  model.changedLanes.clear();
  model.changedPreds.clear();
  if (!r) {
    if (full) {
      model.regs.clear();
      model.preds.clear();
      model.regsOf = null;
    }
    return false;
  }
  const paged = takePage(model, r);
  const same = model.regsOf !== null && model.regsOf.cta === r.cta && model.regsOf.warp === r.warp;
  if (!same || full) {
    if (!same) {
      model.regs.clear();
      model.preds.clear();
    }
  }
  for (const [k, lanes] of Object.entries(r.values ?? {})) {
    const slot = Number(k);
    const old = model.regs.get(slot);
    if (same && old) {
      let m = 0;
      for (let l = 0; l < 32; l++) if (old[l] !== lanes[l]) m |= 1 << l;
      if (m) model.changedLanes.set(slot, m >>> 0);
    }
    model.regs.set(slot, lanes);
  }
  for (const [k, v] of Object.entries(r.preds ?? {})) {
    const slot = Number(k);
    const nv = mask32(v);
    const old = model.preds.get(slot);
    if (same && old !== undefined && old !== nv) model.changedPreds.set(slot, (old ^ nv) >>> 0);
    model.preds.set(slot, nv);
  }
  model.regsOf = { cta: r.cta, warp: r.warp };
  return paged;
}

/** The `inspect` reply: the selected warp's registers in full (no change
 * marks); reports whether the page of the register file changed. */
export function applyInspect(model: Model, cta: number, warp: number, r: RegValues | undefined): boolean {
  const paged = r ? takePage(model, r) : false;
  model.regs.clear();
  model.preds.clear();
  model.changedLanes.clear();
  model.changedPreds.clear();
  for (const [k, lanes] of Object.entries(r?.values ?? {})) model.regs.set(Number(k), lanes);
  for (const [k, v] of Object.entries(r?.preds ?? {})) model.preds.set(Number(k), mask32(v));
  model.regsOf = { cta, warp };
  return paged;
}
