// The bench vault's notes, shared by the benchmarks that need the 10,000-note vault
// (bench-vault, bench-tools, bench-claude): the same seed gives the same vault in each.
// Made-up words from a fixed syllable list, Zipf-distributed, 3–3.4 KB a note with 8–24
// [[links]] (150 in every 500th, a hub), front matter, sections, and code blocks whose
// [[not-a-link]] must not count.

/** mulberry32, with a uniform pick and a Zipf-ish one. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    below: (n) => Math.floor(next() * n),
    /** Zipf-ish: small indexes much more likely. */
    zipf: (n) => Math.min(n - 1, Math.floor(Math.pow(n + 1, next()) - 1)),
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "quin", "dar", "pe", "nu", "zor", "ha", "li", "gro", "bex", "ti", "mun", "os", "ra", "cel", "fin", "ju", "wy"];
export const DIRS = ["notes", "ops", "decisions", "runbooks/db"];
export const relOf = (i) => `${DIRS[i % 4]}/note-${i}.md`;
export const normalize = (s) => s.trim().toLowerCase().replace(/[\s_/]+/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");

/** A generator of the bench vault: its random source, words, concepts and `note(i, hub, salt)`. */
export function benchVault(seed = 0x9e3779b9) {
  const r = rng(seed);
  const word = () => Array.from({ length: 1 + r.below(3) }, () => SYLLABLES[r.below(SYLLABLES.length)]).join("");
  const WORDS = Array.from({ length: 5000 }, word);
  const CONCEPTS = Array.from({ length: 3000 }, (_, i) => `${word()} ${i}`);
  function note(i, hub, salt = "") {
    const m = 1 + r.below(9);
    const head = `---\ntitle: Note ${i} ${WORDS[r.zipf(WORDS.length)]}${salt}\ntags: [${WORDS[r.below(50)]}, ${WORDS[r.below(50)]}]\nmodified: 2026-0${m}-1${r.below(10)}T10:00:00Z\n---\n# Note ${i}\n\n`;
    const links = hub ? 150 : 8 + r.below(17);
    const target = 3000 + r.below(400);
    let placed = 0;
    const parts = [head];
    let len = head.length;
    while (len < target || placed < links) {
      let para = "";
      if (r.below(6) === 0) para += `\n## Section ${word()}\n\n`;
      const n = 30 + r.below(40);
      for (let k = 0; k < n; k++) {
        if (placed < links && r.below(6) === 0) {
          para += `[[${CONCEPTS[r.zipf(CONCEPTS.length)]}]] `;
          placed++;
        } else para += WORDS[r.zipf(WORDS.length)] + " ";
      }
      para += ".\n\n";
      if (r.below(8) === 0) para += "```sh\ncurl -s https://example.invalid/[[not-a-link]] | jq .\n```\n\n";
      parts.push(para);
      len += para.length;
    }
    return parts.join("");
  }
  return { r, word, WORDS, CONCEPTS, note };
}
