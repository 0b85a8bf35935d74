// A line diff: the longest common subsequence of two texts' lines, as rows for a side-by-side view.

/**
 * The rows of a side-by-side diff: {kind: "same"|"removed"|"added"|"changed", left, right}, where
 * left and right are lines (or null on the side that has none). Common prefix and suffix are taken
 * off first, so a small edit to a long text costs little.
 */
export function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const rows = [];
  for (let i = 0; i < start; i++) rows.push({ kind: "same", left: a[i], right: b[i] });
  rows.push(...middle(a.slice(start, endA), b.slice(start, endB)));
  for (let i = endA; i < a.length; i++) rows.push({ kind: "same", left: a[i], right: b[i - endA + endB] });
  return rows;
}

/** The changed middle: an LCS table when it is small enough, otherwise all removed then all added. */
function middle(a, b) {
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) return pair(a, b);
  // lengths[i][j]: the LCS of a[i..] and b[j..].
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const rows = [];
  let removed = [];
  let added = [];
  const flush = () => {
    rows.push(...pair(removed, added));
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      flush();
      rows.push({ kind: "same", left: a[i], right: b[j] });
      i++;
      j++;
    } else if (j < m && (i === n || lengths[i][j + 1] >= lengths[i + 1][j])) {
      added.push(b[j++]);
    } else {
      removed.push(a[i++]);
    }
  }
  flush();
  return rows;
}

/** Removed and added runs side by side: changed where both sides have a line. */
function pair(removed, added) {
  const rows = [];
  const count = Math.max(removed.length, added.length);
  for (let k = 0; k < count; k++) {
    const left = k < removed.length ? removed[k] : null;
    const right = k < added.length ? added[k] : null;
    rows.push({ kind: left !== null && right !== null ? "changed" : left !== null ? "removed" : "added", left, right });
  }
  return rows;
}

/** A record as lines to compare: its content, then every other field as indented JSON. */
export function recordText(record) {
  if (!record) return "";
  const { content, ...rest } = record;
  const text = typeof content === "string" ? content : content === undefined ? "" : JSON.stringify(content);
  return `${text}\n──── fields ────\n${JSON.stringify(rest, null, 2)}`;
}
