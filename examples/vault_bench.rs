//! Benchmark of the embedded vault on a generated vault (native build; the wasm figures come
//! from the JS benchmark). Prints figures; asserts nothing about time.
//!
//!     cargo run --release --example vault_bench [NOTES]
//!
//! NOTES defaults to 10,000 (~30 MB). Link density: 8–24 distinct links a note over a
//! Zipf-distributed vocabulary of 3,000 concepts, a few hub notes with 150 links.
//! `BREAKDOWN=1` first times each stage alone (parse, tokenize, search index, graph);
//! `BREAKDOWN_ONLY=1` stops after that; `COLD_ONLY=1` stops after the cold index.
//! CPU times come from /proc/thread-self/schedstat (Linux), steadier than wall time on a
//! shared machine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hookwise::protocol::DirEntry;
use hookwise::vault::Vault;

#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

// Native only: on wasm32 (where `cargo test --target wasm32-unknown-unknown` builds the
// examples too) the library's own allocator is the global one.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static GLOBAL: Counting = Counting;

/// This thread's CPU time (Linux), steadier than wall time on a busy machine.
fn cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        s.split_whitespace().next()?.parse().ok()?,
    ))
}

fn cpu_ms(since: Option<Duration>) -> String {
    match (since, cpu()) {
        (Some(a), Some(b)) => format!(", cpu {:.0} ms", (b - a).as_secs_f64() * 1e3),
        _ => String::new(),
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Zipf-ish: index in 0..n, small indexes much more likely.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (((n as f64 + 1.0).powf(u) - 1.0) as usize).min(n - 1)
    }
}

const SYLLABLES: [&str; 24] = [
    "ka", "lo", "mi", "ren", "sa", "tor", "vel", "quin", "dar", "pe", "nu", "zor", "ha", "li",
    "gro", "bex", "ti", "mun", "os", "ra", "cel", "fin", "ju", "wy",
];

fn word(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    (0..n)
        .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
        .collect()
}

fn note(rng: &mut Rng, i: usize, words: &[String], concepts: &[String], hub: bool) -> String {
    let mut s = format!(
        "---\ntitle: Note {i} {}\ntags: [{}, {}]\nmodified: 2026-0{}-1{}T10:00:00Z\n---\n# Note {i}\n\n",
        words[rng.zipf(words.len())],
        words[rng.below(50)],
        words[rng.below(50)],
        1 + rng.below(9),
        rng.below(10)
    );
    let links = if hub { 150 } else { 8 + rng.below(17) };
    let target = 3000 + rng.below(400);
    let mut placed = 0;
    while s.len() < target || placed < links {
        if rng.below(6) == 0 {
            s.push_str(&format!("\n## Section {}\n\n", word(rng)));
        }
        for _ in 0..(30 + rng.below(40)) {
            if placed < links && rng.below(6) == 0 {
                s.push_str(&format!("[[{}]] ", concepts[rng.zipf(concepts.len())]));
                placed += 1;
            } else {
                s.push_str(&words[rng.zipf(words.len())]);
                s.push(' ');
            }
        }
        s.push_str(".\n\n");
        if rng.below(8) == 0 {
            s.push_str("```sh\ncurl -s https://example.invalid/[[not-a-link]] | jq .\n```\n\n");
        }
    }
    s
}

fn pct(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn mb(b: usize) -> f64 {
    b as f64 / 1e6
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let words: Vec<String> = (0..5000).map(|_| word(&mut rng)).collect();
    let concepts: Vec<String> = (0..3000)
        .map(|i| format!("{} {}", word(&mut rng), i))
        .collect();
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            let dir = ["notes", "ops", "decisions", "runbooks/db"][i % 4];
            (
                format!("{dir}/note-{i}.md"),
                note(&mut rng, i, &words, &concepts, i % 500 == 0),
            )
        })
        .collect();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let listing: Vec<DirEntry> = files
        .iter()
        .map(|(p, t)| DirEntry {
            path: p.clone(),
            is_file: true,
            size: t.len() as u64,
            mtime_ms: 1.0,
            ..Default::default()
        })
        .collect();
    println!("generated {n} notes, {:.1} MB", mb(bytes));

    if std::env::var_os("BREAKDOWN").is_some() {
        let best = |name: &str, f: &mut dyn FnMut() -> usize| {
            let mut best = Duration::MAX;
            let mut out = 0;
            let a0 = ALLOCS.load(Ordering::Relaxed);
            for _ in 0..3 {
                let t = Instant::now();
                let c = cpu();
                out = f();
                let took = match (c, cpu()) {
                    (Some(a), Some(b)) => b - a,
                    _ => t.elapsed(),
                };
                best = best.min(took);
            }
            let allocs = (ALLOCS.load(Ordering::Relaxed) - a0) / 3;
            println!(
                "  {name}: cpu {:.0} ms ({out}; {allocs} allocations)",
                best.as_secs_f64() * 1e3
            );
        };
        best("pulldown-cmark events", &mut || {
            files
                .iter()
                .map(|(_, t)| pulldown_cmark::Parser::new(t).count())
                .sum()
        });
        best("markdown::parse", &mut || {
            files
                .iter()
                .map(|(p, t)| hookwise::vault::markdown::parse(t, p).concepts.len())
                .sum()
        });
        best("calibrate: count alnum runs", &mut || {
            let mut n = 0;
            for (_, t) in &files {
                let mut inw = false;
                for &b in t.as_bytes() {
                    let a = b.is_ascii_alphanumeric();
                    n += (a && !inw) as usize;
                    inw = a;
                }
            }
            n
        });
        best("tokenize", &mut || {
            let mut n = 0;
            for (_, t) in &files {
                hookwise::vault::search::tokenize(t, |_| n += 1);
            }
            n
        });
        best("search index add", &mut || {
            let mut ix = hookwise::vault::search::SearchIndex::default();
            for (i, (_, t)) in files.iter().enumerate() {
                ix.add(i as u32, "", t);
            }
            ix.live_docs() as usize
        });
        let notes: Vec<Vec<String>> = files
            .iter()
            .map(|(p, t)| {
                hookwise::vault::markdown::parse(t, p)
                    .concepts
                    .into_iter()
                    .map(|c| c.0)
                    .collect()
            })
            .collect();
        best("graph add", &mut || {
            let mut g = hookwise::vault::graph::Graph::default();
            for (i, cs) in notes.iter().enumerate() {
                let mut ids: Vec<u32> = cs.iter().map(|c| g.intern(c)).collect();
                ids.sort_unstable();
                g.add_file(i as u32, &ids);
            }
            g.concept_count()
        });
        best("graph add + edge count", &mut || {
            let mut g = hookwise::vault::graph::Graph::default();
            for (i, cs) in notes.iter().enumerate() {
                let mut ids: Vec<u32> = cs.iter().map(|c| g.intern(c)).collect();
                ids.sort_unstable();
                g.add_file(i as u32, &ids);
            }
            g.edge_count().value() as usize
        });
        if std::env::var_os("BREAKDOWN_ONLY").is_some() {
            return;
        }
    }
    let mem0 = LIVE.load(Ordering::Relaxed);
    PEAK.store(mem0, Ordering::Relaxed);
    let mut vault = Vault::new();
    let t = Instant::now();
    let want = vault.plan("/vault", &listing, true);
    let texts: Vec<String> = files.iter().map(|f| f.1.clone()).collect();
    let copy_bytes = LIVE.load(Ordering::Relaxed) - mem0;
    let t_copy = t.elapsed();
    let allocs0 = ALLOCS.load(Ordering::Relaxed);
    let t = Instant::now();
    let c = cpu();
    for (p, text) in want.iter().zip(texts) {
        vault.ingest(p, Ok(text));
    }
    let cold = t.elapsed();
    let cold_cpu = cpu_ms(c);
    let cold_allocs = ALLOCS.load(Ordering::Relaxed) - allocs0;
    if std::env::var_os("COLD_ONLY").is_some() {
        println!(
            "cold index: {:.0} ms{cold_cpu}, {cold_allocs} allocations",
            cold.as_secs_f64() * 1e3
        );
        return;
    }
    let s = vault.stats();
    let held = LIVE.load(Ordering::Relaxed) - mem0;
    println!(
        "cold index: {:.0} ms{cold_cpu} ({:.0} MB/s)  files {} concepts {} edges {}  (plan+copy {:.0} ms)",
        cold.as_secs_f64() * 1e3,
        mb(bytes) / cold.as_secs_f64(),
        s.files,
        s.concepts,
        vault.edge_count(),
        t_copy.as_secs_f64() * 1e3
    );
    println!(
        "memory: {:.1} MB held by the vault (texts {:.1} MB of it), peak {:.1} MB; {cold_allocs} allocations",
        mb(held),
        mb(copy_bytes),
        mb(PEAK.load(Ordering::Relaxed) - mem0)
    );

    // Re-index after 10 changed files.
    let mut listing2 = listing.clone();
    let mut changed = Vec::new();
    for k in 0..10 {
        let i = (k * 997 + 13) % n;
        let text = note(&mut rng, i, &words, &concepts, false);
        listing2[i].mtime_ms = 2.0;
        listing2[i].size = text.len() as u64;
        changed.push(text);
    }
    let t = Instant::now();
    let c = cpu();
    let want = vault.plan("/vault", &listing2, true);
    for (p, text) in want.iter().zip(changed) {
        vault.ingest(p, Ok(text));
    }
    let re = t.elapsed();
    let re_cpu = cpu_ms(c);
    println!(
        "re-index after {} changed files: {:.2} ms{re_cpu} (plan over {n} entries included)",
        want.len(),
        re.as_secs_f64() * 1e3
    );

    // BuildContext latency over concepts drawn like links are (popular ones more often).
    let mut times = Vec::new();
    let mut times_content = Vec::new();
    for _ in 0..2000 {
        let c = &concepts[rng.zipf(concepts.len())];
        let t = Instant::now();
        let ctx = vault.build_context(c, 2, 20, false);
        times.push(t.elapsed());
        std::hint::black_box(ctx);
        let t = Instant::now();
        let ctx = vault.build_context(c, 2, 20, true);
        times_content.push(t.elapsed());
        std::hint::black_box(ctx);
    }
    println!(
        "BuildContext depth 2: p50 {:?} p99 {:?}; with content: p50 {:?} p99 {:?}",
        pct(times.clone(), 0.5),
        pct(times, 0.99),
        pct(times_content.clone(), 0.5),
        pct(times_content, 0.99)
    );
    let hub = &concepts[0];
    let t = Instant::now();
    let ctx = vault.build_context(hub, 2, 20, true);
    println!(
        "BuildContext of the most linked concept ({} relations): {:?}",
        ctx.direct.len(),
        t.elapsed()
    );

    let mut times = Vec::new();
    for _ in 0..1000 {
        let q = format!(
            "{} {}",
            words[rng.zipf(words.len())],
            words[rng.below(words.len())]
        );
        let t = Instant::now();
        let hits = vault.search(&q, 10);
        times.push(t.elapsed());
        std::hint::black_box(hits);
    }
    println!(
        "search (2 words, top 10): p50 {:?} p99 {:?}",
        pct(times.clone(), 0.5),
        pct(times, 0.99)
    );
    let t = Instant::now();
    let r = vault.recent(10, None);
    println!("recent 10: {:?} ({} entries)", t.elapsed(), r.len());
    println!("for comparison: the maenifold CLI costs ~1.8 s per call (.NET start-up).");
}
