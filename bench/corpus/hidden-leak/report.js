// A throwaway report: most of the app's allocation, none of it kept.
export function buildReport(n) {
  const rows = [];
  for (let i = 0; i < n; i++) rows.push({ i, label: `row ${i}`, cells: [i, i + 1, i + 2, i + 3] });
  return rows.length;
}
