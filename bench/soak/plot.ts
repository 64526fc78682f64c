/**
 * A line chart as hand-written SVG, no dependency: the phases as shaded
 * bands with their names, the kills as ticks on the time axis, one
 * polyline per series (a missing value breaks the line), a linear or a
 * logarithmic y axis. Enough to read a soak at a glance on GitHub.
 */
import type { Phase } from './phases.js';

export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  /** [seconds from the start of the load, value]; NaN leaves a gap. */
  points: [number, number][];
}

export interface Chart {
  title: string;
  yLabel: string;
  series: Series[];
  phases: readonly Phase[];
  /** Seconds from the start of the load. */
  kills: number[];
  log?: boolean;
  format(value: number): string;
}

const W = 960;
const H = 360;
const M = { left: 78, right: 20, top: 46, bottom: 78 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;

const FAULT_FILL: Record<string, string> = { horizon: '#fde2e1', kills: '#fdebd0', none: '#f4f6f8' };

export function renderChart(chart: Chart): string {
  const points = chart.series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y) && (!chart.log || y > 0));
  const phasesEnd = Math.max(...chart.phases.map((p) => p.endMs / 1000));
  const planEnd = Math.max(phasesEnd, ...points.map(([x]) => x), 1);
  const x = (s: number): number => M.left + (s / planEnd) * PW;
  const ys = points.map(([, y]) => y);
  let lo = chart.log ? Math.min(...ys, 1) : 0;
  let hi = Math.max(...ys, chart.log ? 10 : 1);
  if (chart.log) {
    lo = 10 ** Math.floor(Math.log10(Math.max(lo, 1e-3)));
    hi = 10 ** Math.ceil(Math.log10(hi));
  } else {
    hi = niceCeil(hi * 1.05);
  }
  const y = (v: number): number => {
    const f = chart.log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
    return M.top + PH - f * PH;
  };

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${M.left}" y="20" font-size="15" font-weight="bold">${esc(chart.title)}</text>`);

  // Phases: a band each, named at the top.
  chart.phases.forEach((p, i) => {
    const x0 = x(p.startMs / 1000);
    const x1 = x(p.endMs / 1000);
    const fill = p.fault === 'none' ? (i % 2 === 0 ? '#f4f6f8' : '#ffffff') : FAULT_FILL[p.fault];
    out.push(`<rect x="${f(x0)}" y="${M.top}" width="${f(x1 - x0)}" height="${PH}" fill="${fill}"/>`);
    out.push(`<text x="${f((x0 + x1) / 2)}" y="${M.top - 6}" text-anchor="middle" fill="#555">${esc(p.name)}</text>`);
  });

  // After the plan, the drain: no band, only its name.
  if (planEnd > phasesEnd) out.push(`<text x="${f((x(phasesEnd) + x(planEnd)) / 2)}" y="${M.top - 6}" text-anchor="middle" fill="#555">drain</text>`);

  // Axes and grid.
  for (const tick of chart.log ? logTicks(lo, hi) : linearTicks(hi)) {
    const ty = y(tick);
    out.push(`<line x1="${M.left}" x2="${M.left + PW}" y1="${f(ty)}" y2="${f(ty)}" stroke="#dde1e5" stroke-width="1"/>`);
    out.push(`<text x="${M.left - 6}" y="${f(ty + 4)}" text-anchor="end" fill="#333">${esc(chart.format(tick))}</text>`);
  }
  const minuteStep = niceCeil(planEnd / 60 / 10) || 1;
  for (let m = 0; m * 60 <= planEnd + 1e-6; m += minuteStep) {
    const tx = x(m * 60);
    out.push(`<line x1="${f(tx)}" x2="${f(tx)}" y1="${M.top + PH}" y2="${M.top + PH + 4}" stroke="#333"/>`);
    out.push(`<text x="${f(tx)}" y="${M.top + PH + 17}" text-anchor="middle" fill="#333">${fmtMinutes(m)}</text>`);
  }
  out.push(`<text x="${M.left + PW / 2}" y="${M.top + PH + 34}" text-anchor="middle" fill="#333">minutes from the start of the load</text>`);
  out.push(`<text transform="translate(16 ${M.top + PH / 2}) rotate(-90)" text-anchor="middle" fill="#333">${esc(chart.yLabel)}</text>`);
  out.push(`<rect x="${M.left}" y="${M.top}" width="${PW}" height="${PH}" fill="none" stroke="#333"/>`);
  for (const k of chart.kills) {
    out.push(`<path d="M${f(x(k))} ${M.top + PH} l-4 -8 h8 z" fill="#c0392b"><title>SIGKILL at ${k.toFixed(0)} s</title></path>`);
  }

  // Series.
  for (const s of chart.series) {
    const runs: string[][] = [[]];
    for (const [sx, sy] of s.points) {
      if (!Number.isFinite(sy) || (chart.log && sy <= 0)) {
        if (runs[runs.length - 1]!.length > 0) runs.push([]);
        continue;
      }
      runs[runs.length - 1]!.push(`${f(x(sx))},${f(y(Math.min(Math.max(sy, lo), hi)))}`);
    }
    for (const run of runs) {
      if (run.length === 0) continue;
      if (run.length === 1) {
        const [cx, cy] = run[0]!.split(',');
        out.push(`<circle cx="${cx}" cy="${cy}" r="2" fill="${s.color}"/>`);
      } else {
        out.push(`<polyline points="${run.join(' ')}" fill="none" stroke="${s.color}" stroke-width="1.8"${s.dashed === true ? ' stroke-dasharray="6 4"' : ''}/>`);
      }
    }
  }

  // Legend, under the axis.
  let lx = M.left;
  const ly = H - 14;
  for (const s of chart.series) {
    out.push(`<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.5"${s.dashed === true ? ' stroke-dasharray="6 4"' : ''}/>`);
    out.push(`<text x="${lx + 27}" y="${ly}" fill="#222">${esc(s.label)}</text>`);
    lx += 36 + s.label.length * 6.4;
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function f(v: number): string {
  return v.toFixed(1);
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fmtMinutes(m: number): string {
  return Number.isInteger(m) ? String(m) : m.toFixed(1);
}

/** The smallest 1, 2 or 5 times a power of ten that is >= v. */
function niceCeil(v: number): number {
  if (v <= 0) return 0;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function linearTicks(hi: number): number[] {
  const step = niceCeil(hi / 5);
  const ticks: number[] = [];
  for (let t = 0; t <= hi + step * 1e-9; t += step) ticks.push(t);
  return ticks;
}

function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  return ticks;
}
