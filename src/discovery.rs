//! Finding the maenifold CLI. Order: option `cliPath` / env `MAENIFOLD_CLI`;
//! `$MAENIFOLD_ROOT/bin/maenifold` (MAENIFOLD_ROOT is maenifold's data root, default
//! `~/maenifold`); every `PATH` entry. Symlinks are resolved; a binary found through the root
//! must resolve to a path inside the (resolved) root — compared by path component, so
//! `/safe` never admits `/safe-evil/…`; the execute bit is required; values with NUL bytes are
//! rejected. An explicitly configured path that does not work is an error, not a reason to
//! look elsewhere.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::paths::{is_absolute, join as join_path};
use crate::protocol::{Request, StatResult};
use crate::runtime::{join_all, Io};

/// True when `path` is `root` or lies below it, comparing whole path components.
pub use crate::paths::inside;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// The resolved path of the binary to run, when one was found.
    pub path: Option<String>,
    /// `option`, `env`, `root`, `path`, or `none`.
    pub source: &'static str,
    /// Why nothing usable was found, or why candidates were passed over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone)]
struct Candidate {
    path: String,
    source: &'static str,
}

/// Discover the CLI, asking the host to stat the candidates (one batch).
pub async fn discover(
    io: &Io,
    explicit: Option<(String, &'static str)>,
    env: &BTreeMap<String, String>,
    cwd: &str,
) -> Discovery {
    let mut rejected: Vec<String> = Vec::new();
    if let Some((p, source)) = explicit {
        if p.contains('\0') {
            return Discovery {
                path: None,
                source,
                error: Some(format!("the {source} CLI path contains a NUL byte")),
            };
        }
        let p = if is_absolute(&p) {
            p
        } else {
            join_path(cwd, &p)
        };
        let st = stat(io, &p).await;
        return match check(&st, None) {
            Ok(real) => Discovery {
                path: Some(real),
                source,
                error: None,
            },
            Err(why) => Discovery {
                path: None,
                source,
                error: Some(format!("{p} ({source}): {why}")),
            },
        };
    }

    let root = match env.get("MAENIFOLD_ROOT").filter(|r| !r.is_empty()) {
        Some(r) => Some(r.clone()),
        None => env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| join_path(h, "maenifold")),
    };
    let mut candidates: Vec<Candidate> = Vec::new();
    match &root {
        Some(r) if r.contains('\0') => rejected.push("MAENIFOLD_ROOT contains a NUL byte".into()),
        Some(r) => candidates.push(Candidate {
            path: join_path(&join_path(r, "bin"), "maenifold"),
            source: "root",
        }),
        None => {}
    }
    if let Some(path) = env.get("PATH") {
        if path.contains('\0') {
            rejected.push("PATH contains a NUL byte".into());
        } else {
            for dir in path.split(':').filter(|d| !d.is_empty() && is_absolute(d)) {
                let c = join_path(dir, "maenifold");
                if !candidates.iter().any(|x| x.path == c) {
                    candidates.push(Candidate {
                        path: c,
                        source: "path",
                    });
                }
            }
        }
    }

    // Stat the root and every candidate at once.
    let root_for_stat = root.clone().filter(|r| !r.contains('\0'));
    let mut paths: Vec<String> = candidates.iter().map(|c| c.path.clone()).collect();
    if let Some(r) = &root_for_stat {
        paths.push(r.clone());
    }
    let mut stats = join_all(paths.iter().map(|p| stat(io, p)).collect()).await;
    let root_real = if root_for_stat.is_some() {
        stats.pop().and_then(|s| s.realpath)
    } else {
        None
    };

    for (c, st) in candidates.iter().zip(stats.iter()) {
        if !st.exists {
            continue;
        }
        let within = if c.source == "root" {
            match &root_real {
                Some(r) => Some(r.as_str()),
                None => {
                    rejected.push(format!(
                        "{}: the maenifold root could not be resolved",
                        c.path
                    ));
                    continue;
                }
            }
        } else {
            None
        };
        match check(st, within) {
            Ok(real) => {
                let error = if rejected.is_empty() {
                    None
                } else {
                    Some(format!("passed over: {}", rejected.join("; ")))
                };
                return Discovery {
                    path: Some(real),
                    source: c.source,
                    error,
                };
            }
            Err(why) => rejected.push(format!("{} ({}): {why}", c.path, c.source)),
        }
    }
    let mut error = String::from("maenifold CLI not found (set the cliPath option or MAENIFOLD_CLI, or put maenifold on PATH)");
    if !rejected.is_empty() {
        error.push_str("; passed over: ");
        error.push_str(&rejected.join("; "));
    }
    Discovery {
        path: None,
        source: "none",
        error: Some(error),
    }
}

async fn stat(io: &Io, path: &str) -> StatResult {
    let v = io
        .request(Request::Stat {
            path: path.to_string(),
        })
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

fn check(st: &StatResult, within: Option<&str>) -> Result<String, String> {
    if !st.exists {
        return Err(match st.error {
            Some(e) => e.describe(st.detail.as_deref()),
            None => "does not exist".into(),
        });
    }
    let real = st.realpath.clone().ok_or("could not be resolved")?;
    if real.contains('\0') {
        return Err("resolves to a path with a NUL byte".into());
    }
    if let Some(root) = within {
        if !inside(&real, root) {
            return Err(format!(
                "resolves to {real}, outside the maenifold root {root}"
            ));
        }
    }
    if !st.is_file {
        return Err(format!("{real} is not a file"));
    }
    if !st.executable {
        return Err(format!("{real} is not executable"));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::drive::{run_with, Reply};
    use serde_json::{json, Value};

    /// Drive discovery against a fake file system: path -> stat reply.
    fn run(
        fs: &[(&str, Value)],
        explicit: Option<(&str, &'static str)>,
        env: &[(&str, &str)],
    ) -> Discovery {
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let explicit = explicit.map(|(p, s)| (p.to_string(), s));
        let stat = |req: &Request| {
            let Request::Stat { path } = req else {
                panic!()
            };
            let reply = fs.iter().find(|(p, _)| p == path).map(|(_, v)| v.clone());
            Reply::Now(reply.unwrap_or(json!({"exists": false})))
        };
        let result = run_with(stat, move |io| async move {
            serde_json::to_value(discover(&io, explicit, &env, "/work").await).unwrap()
        });
        Discovery {
            path: result["path"].as_str().map(String::from),
            source: Box::leak(
                result["source"]
                    .as_str()
                    .unwrap()
                    .to_string()
                    .into_boxed_str(),
            ),
            error: result["error"].as_str().map(String::from),
        }
    }

    fn exe(real: &str) -> Value {
        json!({"exists": true, "realpath": real, "isFile": true, "executable": true})
    }

    #[test]
    fn explicit_path_wins_and_is_resolved() {
        let d = run(
            &[("/opt/m", exe("/opt/real/m"))],
            Some(("/opt/m", "option")),
            &[("PATH", "/usr/bin")],
        );
        assert_eq!(
            (d.path.as_deref(), d.source),
            (Some("/opt/real/m"), "option")
        );
        let d = run(
            &[("/work/rel/m", exe("/work/rel/m"))],
            Some(("rel/m", "env")),
            &[],
        );
        assert_eq!(d.path.as_deref(), Some("/work/rel/m"));
    }

    #[test]
    fn broken_explicit_path_is_an_error_not_a_fallback() {
        let d = run(
            &[("/usr/bin/maenifold", exe("/usr/bin/maenifold"))],
            Some(("/nope", "env")),
            &[("PATH", "/usr/bin")],
        );
        assert_eq!(d.path, None);
        assert!(d.error.unwrap().contains("/nope"));
        let d = run(&[], Some(("/a\0b", "option")), &[]);
        assert!(d.error.unwrap().contains("NUL"));
    }

    #[test]
    fn root_then_path() {
        let fs = [
            ("/data/m/bin/maenifold", exe("/data/m/bin/maenifold")),
            ("/data/m", exe("/data/m")),
            ("/usr/bin/maenifold", exe("/usr/bin/maenifold")),
        ];
        let d = run(
            &fs,
            None,
            &[("MAENIFOLD_ROOT", "/data/m"), ("PATH", "/usr/bin")],
        );
        assert_eq!(
            (d.path.as_deref(), d.source),
            (Some("/data/m/bin/maenifold"), "root")
        );
        let d = run(
            &fs[2..],
            None,
            &[
                ("MAENIFOLD_ROOT", "/data/m"),
                ("PATH", "/usr/local/bin:/usr/bin"),
            ],
        );
        assert_eq!(
            (d.path.as_deref(), d.source),
            (Some("/usr/bin/maenifold"), "path")
        );
    }

    #[test]
    fn default_root_is_home_maenifold() {
        let fs = [
            (
                "/home/u/maenifold/bin/maenifold",
                exe("/home/u/maenifold/bin/maenifold"),
            ),
            ("/home/u/maenifold", exe("/home/u/maenifold")),
        ];
        let d = run(&fs, None, &[("HOME", "/home/u")]);
        assert_eq!(d.source, "root");
    }

    #[test]
    fn symlink_out_of_root_and_sibling_prefix_are_refused() {
        let fs = [
            ("/safe/bin/maenifold", exe("/safe-evil/maenifold")),
            ("/safe", exe("/safe")),
        ];
        let d = run(&fs, None, &[("MAENIFOLD_ROOT", "/safe")]);
        assert_eq!(d.path, None);
        assert!(d.error.unwrap().contains("outside the maenifold root"));
        // with a good one on PATH, that one is used and the refusal is reported
        let fs2 = [
            fs[0].clone(),
            fs[1].clone(),
            ("/usr/bin/maenifold", exe("/usr/bin/maenifold")),
        ];
        let d = run(
            &fs2,
            None,
            &[("MAENIFOLD_ROOT", "/safe"), ("PATH", "/usr/bin")],
        );
        assert_eq!(d.source, "path");
        assert!(d.error.unwrap().contains("/safe-evil"));
        // a root that is itself a symlink: compared resolved to resolved
        let fs3 = [
            ("/link/bin/maenifold", exe("/real/bin/maenifold")),
            ("/link", exe("/real")),
        ];
        assert_eq!(
            run(&fs3, None, &[("MAENIFOLD_ROOT", "/link")]).source,
            "root"
        );
    }

    #[test]
    fn not_executable_or_not_a_file() {
        let fs = [(
            "/usr/bin/maenifold",
            json!({"exists": true, "realpath": "/usr/bin/maenifold", "isFile": true, "executable": false}),
        )];
        let d = run(&fs, None, &[("PATH", "/usr/bin")]);
        assert!(d.error.unwrap().contains("not executable"));
        let fs = [(
            "/usr/bin/maenifold",
            json!({"exists": true, "realpath": "/usr/bin/maenifold", "isDir": true}),
        )];
        assert!(run(&fs, None, &[("PATH", "/usr/bin")])
            .error
            .unwrap()
            .contains("not a file"));
    }

    #[test]
    fn component_wise_containment() {
        assert!(inside("/safe/bin/m", "/safe"));
        assert!(inside("/safe", "/safe/"));
        assert!(!inside("/safe-evil/m", "/safe"));
        assert!(!inside("/saf", "/safe"));
    }
}
