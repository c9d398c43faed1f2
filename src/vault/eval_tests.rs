//! Search quality on the public vaults of other authors, natively (the same ranking the wasm
//! runs; scripts/eval-knowledge.mjs measures the built package). Ignored: it reads vaults kept
//! outside the repository. `HOOKWISE_EVAL_VAULTS` (default /work/evalvaults) holds them as
//! `<owner>+<name>/`; `HOOKWISE_EVAL_SET` = `tune` (default: every question but the second
//! held-out set), `held2`; the repository's own vaults are measured too; `HOOKWISE_EVAL_VAULT` narrows to one vault.
//!   HOOKWISE_EVAL_SET=tune cargo test -q --lib eval_tests -- --ignored --nocapture

use std::rc::Rc;

use super::*;
use crate::testing::TestHost;

fn load(host: &mut TestHost, root: &std::path::Path, at: &str) {
    for e in std::fs::read_dir(root).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let p = format!("{at}/{name}");
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            if name == ".git" || name == "node_modules" {
                continue;
            }
            host.dir(&p);
            load(host, &e.path(), &p);
        } else if ft.is_file()
            && (name.ends_with(".md") || name == "config.edn" || name == "dendron.yml")
        {
            if let Ok(t) = std::fs::read_to_string(e.path()) {
                host.file(&p, &t);
            }
        }
    }
}

#[test]
#[ignore]
fn public_vault_search() {
    let base = std::env::var("HOOKWISE_EVAL_VAULTS").unwrap_or("/work/evalvaults".into());
    let set = std::env::var("HOOKWISE_EVAL_SET").unwrap_or("tune".into());
    let only = std::env::var("HOOKWISE_EVAL_VAULT").ok();
    let list: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/eval-knowledge-public.json"))
            .unwrap(),
    )
    .unwrap();
    // The repository's own vaults (scripts/eval-knowledge.json) join as two more.
    let own: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/eval-knowledge.json"))
            .unwrap(),
    )
    .unwrap();
    let mut vaults = list["vaults"].as_object().unwrap().clone();
    for name in ["vault", "garden"] {
        vaults.insert(
            name.into(),
            serde_json::json!({"repo": "", "root": concat!(env!("CARGO_MANIFEST_DIR"), "/examples/").to_string() + name, "questions": own[name]}),
        );
    }
    let (mut all_hit, mut all_of) = (0, 0);
    for (name, v) in &vaults {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let dir = std::path::Path::new(&base)
            .join(v["repo"].as_str().unwrap().replace('/', "+"))
            .join(v["root"].as_str().unwrap()); // an absolute root replaces the rest
        let root = "/v";
        let mut host = TestHost::default();
        host.dir(root);
        load(&mut host, &dir, root);
        let vault = Rc::new(RefCell::new(Vault::new()));
        let vv = vault.clone();
        let t = std::time::Instant::now();
        crate::testing::run(&mut host, move |io| async move { load::refresh(&io, &vv, root).await });
        let ms = t.elapsed().as_millis();
        let (mut hit, mut of, mut rr) = (0, 0, 0.0);
        let mut missed = Vec::new();
        for q in v["questions"].as_array().unwrap() {
            let h2 = q.get("held2").is_some_and(|x| x == true);
            if (set == "held2") != h2 {
                continue;
            }
            of += 1;
            let want = q["note"].as_str().unwrap();
            let hits = vault.borrow().search(q["q"].as_str().unwrap(), 5);
            match hits.iter().position(|h| h.uri == want) {
                Some(i) => {
                    hit += 1;
                    rr += 1.0 / (i + 1) as f64;
                }
                None => missed.push(format!(
                    "{} -> {} (got {})",
                    q["q"].as_str().unwrap(),
                    want,
                    hits.first().map_or("", |h| h.uri.as_str())
                )),
            }
        }
        all_hit += hit;
        all_of += of;
        println!(
            "{name}: {} notes ({ms} ms), hit@5 {hit}/{of} ({:.0} %), MRR {:.2}",
            vault.borrow().by_path.len(),
            100.0 * hit as f64 / of.max(1) as f64,
            rr / of.max(1) as f64
        );
        if std::env::var("HOOKWISE_EVAL_MISSED").is_ok() {
            for m in missed {
                println!("  missed: {m}");
            }
        }
    }
    println!("all: {all_hit}/{all_of} ({:.1} %)", 100.0 * all_hit as f64 / all_of.max(1) as f64);
}
