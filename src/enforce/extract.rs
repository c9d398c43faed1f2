//! What a tool call is about: keywords, project, service, target hosts, URLs, the shell
//! command and subcommand, the working directory and a risk level. Pure; no I/O.
//!
//! Shell commands (the host profile's shell tools, [`crate::host`]: OpenCode's `bash`, Roo's
//! `execute_command`, OpenClaw's `exec`, Claude Code's `Bash`, each from its own command key)
//! are read with [`super::shell`]: every
//! segment of a chain is looked at and the riskiest one describes the call. A command whose
//! every segment is read-only (`ls`, `cat`, `git status`, …, no output redirection to a file,
//! no command substitution) takes the fast path and is never blocked.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::re::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::shell::{self, basename, Segment};
use crate::host::Profile;

/// How dangerous an action looks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn parse(s: &str) -> Option<Risk> {
        match s {
            "low" => Some(Risk::Low),
            "medium" => Some(Risk::Medium),
            "high" => Some(Risk::High),
            "critical" => Some(Risk::Critical),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

/// Where a risk pattern is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Each shell command segment, as `program args…` (after `sudo`, `env`, assignments),
    /// then its here-document body on the following lines.
    Command,
    /// The whole call text ([`ActionContext::haystack`]) of any tool.
    Any,
}

#[derive(Debug, Clone)]
pub struct RiskPattern {
    pub name: String,
    pub regex: Regex,
    pub level: Risk,
    pub scope: Scope,
}

/// The compiled extraction rules (built from the configuration).
#[derive(Debug, Clone)]
pub struct Rules {
    /// service name → keywords (lowercase); order is the configuration's.
    pub services: Vec<(String, Vec<String>)>,
    pub risk_patterns: Vec<RiskPattern>,
    /// A target host matching one of these makes the call at least `high`.
    pub prod_hosts: Vec<Regex>,
    /// Extra read-only command prefixes, as words (`["make", "help"]`).
    pub read_only: Vec<Vec<String>>,
}

/// A URL named in the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlRef {
    pub scheme: String,
    pub host: String,
    pub path: String,
}

/// What the call is about. Serialized (camelCase) as the `detected` part of a decision.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionContext {
    pub tool: String,
    /// `git push -f`, `docker compose up`, `rm -rf`, `ssh`: program, subcommand, salient flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subcommand: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sudo: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The primary service (of the riskiest command, else the first one named).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<UrlRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    pub risk: Risk,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub risk_reasons: Vec<String>,
    pub read_only: bool,
    pub keywords: Vec<String>,
    /// The text SOP patterns and keywords are matched against: the tool's name on the first
    /// line, then for shell tools each command segment (as for [`Scope::Command`]) and
    /// here-document, else each argument as `key: value` (nested keys dotted).
    #[serde(skip)]
    pub haystack: String,
}

/// Inputs besides the tool call.
#[derive(Debug, Clone, Default)]
pub struct Situation<'a> {
    /// The session's working directory (the project root).
    pub cwd: &'a str,
    /// The worktree name: the project when no `/Projects/<name>` is named.
    pub worktree: &'a str,
}

const READ_ONLY_PROGRAMS: &[&str] = &[
    "ls",
    "ll",
    "la",
    "dir",
    "cat",
    "bat",
    "head",
    "tail",
    "less",
    "more",
    "pwd",
    "echo",
    "printf",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "wc",
    "which",
    "type",
    "whereis",
    "whoami",
    "id",
    "groups",
    "uname",
    "date",
    "cal",
    "ps",
    "pgrep",
    "df",
    "du",
    "free",
    "uptime",
    "stat",
    "file",
    "tree",
    "printenv",
    "env",
    "true",
    "false",
    "test",
    "[",
    "diff",
    "cmp",
    "comm",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "jq",
    "yq",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "history",
    "man",
    "help",
    "nproc",
    "lscpu",
    "lsblk",
    "lsof",
    "netstat",
    "ss",
    "cd",
    "pushd",
    "popd",
    "export",
    "column",
    "nl",
    "od",
    "hexdump",
    "xxd",
    "strings",
    "cut",
    "uniq",
    "tr",
    "fold",
    "fmt",
    "rev",
    "tac",
    "seq",
    "sleep",
    "wait",
    "locale",
    "tty",
    "getent",
    "dig",
    "nslookup",
    "host",
    "ping",
    "traceroute",
    "whois",
    "journalctl",
    "pstree",
    "vmstat",
    "iostat",
    "last",
    "w",
    "who",
];

/// Subcommands that only read, by program. A `*` entry: any subcommand starting with the rest.
const READ_ONLY_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "status",
            "log",
            "diff",
            "show",
            "blame",
            "ls-files",
            "ls-tree",
            "ls-remote",
            "rev-parse",
            "describe",
            "shortlog",
            "grep",
            "cat-file",
            "whatchanged",
            "reflog",
            "stash list",
            "stash show",
            "help",
            "version",
        ],
    ),
    (
        "docker",
        &[
            "ps",
            "images",
            "logs",
            "inspect",
            "version",
            "info",
            "top",
            "compose ps",
            "compose logs",
            "compose config",
            "compose ls",
            "container ls",
            "image ls",
            "volume ls",
            "network ls",
            "system df",
            "context ls",
        ],
    ),
    ("docker-compose", &["ps", "logs", "config", "ls"]),
    (
        "podman",
        &["ps", "images", "logs", "inspect", "version", "info"],
    ),
    (
        "kubectl",
        &[
            "get",
            "describe",
            "logs",
            "explain",
            "version",
            "top",
            "api-resources",
            "api-versions",
            "cluster-info",
            "config view",
            "config get-contexts",
            "config current-context",
            "auth can-i",
            "rollout status",
            "rollout history",
        ],
    ),
    (
        "helm",
        &[
            "list", "ls", "status", "get", "history", "show", "search", "version", "template",
        ],
    ),
    (
        "terraform",
        &[
            "plan",
            "show",
            "output",
            "validate",
            "version",
            "providers",
            "graph",
            "state list",
            "state show",
        ],
    ),
    (
        "tofu",
        &[
            "plan",
            "show",
            "output",
            "validate",
            "version",
            "providers",
            "graph",
        ],
    ),
    (
        "systemctl",
        &[
            "status",
            "show",
            "cat",
            "is-active",
            "is-enabled",
            "is-failed",
            "list-units",
            "list-unit-files",
            "list-timers",
            "list-dependencies",
        ],
    ),
    (
        "npm",
        &[
            "ls",
            "list",
            "view",
            "outdated",
            "help",
            "explain",
            "config get",
            "config list",
        ],
    ),
    ("cargo", &["tree", "metadata", "search"]),
    (
        "gh",
        &[
            "pr view",
            "pr list",
            "pr status",
            "pr diff",
            "pr checks",
            "issue view",
            "issue list",
            "repo view",
            "run view",
            "run list",
            "auth status",
        ],
    ),
    (
        "aws",
        &[
            "* describe-",
            "* list-",
            "* get-",
            "s3 ls",
            "sts get-caller-identity",
        ],
    ),
    (
        "redis-cli",
        &[
            "GET", "INFO", "PING", "TTL", "TYPE", "EXISTS", "SCAN", "KEYS", "LRANGE", "HGETALL",
            "SMEMBERS", "DBSIZE",
        ],
    ),
];

/// Programs with subcommands: short options taking a value, long ones taking a value, and
/// whether the subcommand has two words (given the first).
struct SubSpec {
    program: &'static str,
    short: &'static str,
    long: &'static [&'static str],
    two_words: fn(&str) -> bool,
}

fn never(_: &str) -> bool {
    false
}
fn always(_: &str) -> bool {
    true
}

const SUB_SPECS: &[SubSpec] = &[
    SubSpec {
        program: "git",
        short: "Cc",
        long: &["git-dir", "work-tree", "namespace"],
        two_words: |f| f == "stash",
    },
    SubSpec {
        program: "docker",
        short: "Hc",
        long: &["host", "context", "config", "log-level"],
        two_words: |f| {
            matches!(
                f,
                "compose"
                    | "container"
                    | "image"
                    | "volume"
                    | "network"
                    | "system"
                    | "buildx"
                    | "context"
                    | "swarm"
                    | "service"
                    | "stack"
                    | "secret"
                    | "node"
            )
        },
    },
    SubSpec {
        program: "podman",
        short: "c",
        long: &["connection"],
        two_words: |f| {
            matches!(
                f,
                "container" | "image" | "volume" | "network" | "system" | "pod"
            )
        },
    },
    SubSpec {
        program: "docker-compose",
        short: "fp",
        long: &[
            "file",
            "project-name",
            "env-file",
            "profile",
            "project-directory",
        ],
        two_words: never,
    },
    SubSpec {
        program: "kubectl",
        short: "ns",
        long: &[
            "namespace",
            "context",
            "kubeconfig",
            "cluster",
            "user",
            "server",
            "token",
        ],
        two_words: |f| matches!(f, "rollout" | "config" | "auth" | "certificate" | "set"),
    },
    SubSpec {
        program: "oc",
        short: "ns",
        long: &["namespace", "context", "kubeconfig", "server"],
        two_words: |f| matches!(f, "rollout" | "config" | "adm"),
    },
    SubSpec {
        program: "helm",
        short: "n",
        long: &["namespace", "kube-context", "kubeconfig"],
        two_words: |f| matches!(f, "repo" | "plugin" | "registry"),
    },
    SubSpec {
        program: "terraform",
        short: "",
        long: &[],
        two_words: |f| matches!(f, "state" | "workspace"),
    },
    SubSpec {
        program: "tofu",
        short: "",
        long: &[],
        two_words: |f| matches!(f, "state" | "workspace"),
    },
    SubSpec {
        program: "systemctl",
        short: "HMtp",
        long: &["host", "machine", "type", "property"],
        two_words: never,
    },
    SubSpec {
        program: "service",
        short: "",
        long: &[],
        two_words: always,
    },
    SubSpec {
        program: "npm",
        short: "",
        long: &["prefix", "workspace"],
        two_words: |f| matches!(f, "run" | "run-script" | "config"),
    },
    SubSpec {
        program: "pnpm",
        short: "C",
        long: &["dir", "filter"],
        two_words: |f| f == "run",
    },
    SubSpec {
        program: "yarn",
        short: "",
        long: &["cwd"],
        two_words: |f| f == "run",
    },
    SubSpec {
        program: "bun",
        short: "",
        long: &["cwd"],
        two_words: |f| f == "run",
    },
    SubSpec {
        program: "cargo",
        short: "Z",
        long: &["manifest-path", "config"],
        two_words: never,
    },
    SubSpec {
        program: "go",
        short: "C",
        long: &[],
        two_words: |f| f == "mod",
    },
    SubSpec {
        program: "gh",
        short: "R",
        long: &["repo", "hostname"],
        two_words: always,
    },
    SubSpec {
        program: "aws",
        short: "",
        long: &["profile", "region", "output", "endpoint-url", "query"],
        two_words: always,
    },
    SubSpec {
        program: "gcloud",
        short: "",
        long: &["project", "account", "configuration"],
        two_words: always,
    },
    SubSpec {
        program: "az",
        short: "",
        long: &["subscription"],
        two_words: always,
    },
    SubSpec {
        program: "apt",
        short: "o",
        long: &[],
        two_words: never,
    },
    SubSpec {
        program: "apt-get",
        short: "o",
        long: &[],
        two_words: never,
    },
    SubSpec {
        program: "brew",
        short: "",
        long: &[],
        two_words: never,
    },
    SubSpec {
        program: "pip",
        short: "",
        long: &[],
        two_words: never,
    },
    SubSpec {
        program: "pip3",
        short: "",
        long: &[],
        two_words: never,
    },
    SubSpec {
        program: "redis-cli",
        short: "hpanu",
        long: &["user", "pass"],
        two_words: never,
    },
    SubSpec {
        program: "ansible-galaxy",
        short: "",
        long: &[],
        two_words: always,
    },
    SubSpec {
        program: "make",
        short: "fCjo",
        long: &["file", "directory", "jobs"],
        two_words: never,
    },
];

/// Flags worth naming in the command summary.
const SALIENT_FLAGS: &[&str] = &[
    "--force",
    "--force-with-lease",
    "--hard",
    "--recursive",
    "-rf",
    "-fr",
    "-Rf",
    "-fR",
    "--no-verify",
    "--all",
    "--prune",
    "--auto-approve",
    "-auto-approve",
    "--yes",
    "--purge",
    "--cascade",
    "--mirror",
    "--delete",
];
/// Short flags that are salient only for some programs (`-f` is `--filename` to kubectl).
const SALIENT_SHORT: &[(&str, &[&str])] = &[
    ("git", &["-f", "-D"]),
    ("chmod", &["-R"]),
    ("chown", &["-R"]),
    ("chgrp", &["-R"]),
    ("cp", &["-r", "-R"]),
];

/// Programs whose positional arguments are hosts (or `user@host[:path]`).
const NETWORK_PROGRAMS: &[&str] = &[
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "mosh",
    "telnet",
    "ping",
    "ping6",
    "nc",
    "ncat",
    "dig",
    "nslookup",
    "host",
    "traceroute",
    "mtr",
    "curl",
    "wget",
    "http",
    "https",
    "ssh-copy-id",
];
/// Options that name a host, for any program.
const HOST_OPTIONS_LONG: &[&str] = &["host", "hostname", "server", "endpoint"];
/// Programs whose `-h` is a host (database clients).
const H_IS_HOST: &[&str] = &[
    "psql",
    "pg_dump",
    "pg_restore",
    "pg_dumpall",
    "mysql",
    "mysqldump",
    "mariadb",
    "redis-cli",
    "mongo",
    "mongosh",
    "clickhouse-client",
    "cqlsh",
];

/// File extensions: `main.rs` is a file, not a host.
const FILE_EXTENSIONS: &[&str] = &[
    "md", "rs", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "yaml", "yml", "toml", "txt", "py",
    "sh", "go", "java", "c", "h", "cpp", "hpp", "cc", "lock", "log", "html", "css", "scss", "sql",
    "conf", "cfg", "ini", "env", "xml", "csv", "png", "jpg", "jpeg", "gif", "svg", "gz", "tgz",
    "tar", "zip", "exe", "dll", "so", "wasm", "rb", "php", "swift", "kt", "lua", "pl", "vue",
    "svelte", "bak", "tmp", "pem", "key", "crt", "pid", "sock", "service", "timer", "d", "o", "a",
    "out", "bin", "img", "iso", "pdf", "doc", "tf", "tfvars", "hcl", "proto",
];

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "from", "into", "then", "else", "true", "false",
    "null", "none", "not", "you", "are", "was", "has", "have", "will", "can", "all", "any", "but",
    "our", "out", "use", "using", "via", "per", "new", "old", "tmp", "dev", "usr", "bin", "etc",
    "var", "home", "src", "lib", "opt", "local", "share", "null",
];

const MAX_KEYWORDS: usize = 12;

/// Extract the context of one tool call on the engine API's default host.
pub fn extract(tool: &str, args: &Value, sit: &Situation, rules: &Rules) -> ActionContext {
    extract_on(crate::host::default_profile(), tool, args, sit, rules)
}

/// Extract the context of one tool call on `host`: its shell tools' command key, its
/// read-only tools (the fast path).
pub fn extract_on(
    host: &Profile,
    tool: &str,
    args: &Value,
    sit: &Situation,
    rules: &Rules,
) -> ActionContext {
    let mut ctx = ActionContext {
        tool: tool.to_string(),
        ..Default::default()
    };
    let command_line = crate::host::args::command(host, tool, args);
    let mut tokens: Vec<String> = Vec::new(); // lowercase, for services and keywords
    let mut hosts: Vec<String> = Vec::new();

    // Explicit working directory arguments.
    for key in [
        "workdir",
        "cwd",
        "directory",
        "dir",
        "working_directory",
        "workingDirectory",
    ] {
        if let Some(s) = args
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            ctx.workdir = Some(s.to_string());
            break;
        }
    }

    let mut texts: Vec<String> = Vec::new(); // every string, for projects and URLs
    if let Some(line) = command_line {
        let segs = shell::split(line);
        let mut hay = vec![tool.to_string()];
        let mut best: Option<(Risk, usize)> = None;
        let mut all_read_only = true;
        let mut reasons: Vec<String> = Vec::new();
        let mut risks: Vec<Risk> = Vec::new();
        for (i, seg) in segs.iter().enumerate() {
            let canon = canonical(seg);
            hay.push(canon.clone());
            if !seg.heredoc.is_empty() {
                hay.push(seg.heredoc.trim_end().to_string());
            }
            texts.extend(seg.words.iter().cloned());
            let (risk, why) = segment_risk(seg, &canon, rules);
            reasons.extend(why);
            risks.push(risk);
            if !segment_read_only(seg, rules) {
                all_read_only = false;
            }
            if let Some((start, _)) = seg.command_start() {
                let prog = basename(&seg.words[start]);
                if prog == "cd" && !seg.nested && ctx.workdir.is_none() {
                    if let Some(d) = seg.words.get(start + 1) {
                        ctx.workdir = Some(d.clone());
                    }
                }
                hosts.extend(segment_hosts(seg));
            }
            for w in &seg.words {
                push_tokens(&mut tokens, w);
            }
            // the riskiest segment describes the call; ties: the first whose program is not
            // read-only (`echo $(curl …)` is about curl)
            let ro = command_read_only(seg, rules);
            let better = match best {
                None => true,
                Some((r, j)) => {
                    risk > r || (risk == r && command_read_only(&segs[j], rules) && !ro)
                }
            };
            if better && seg.command_start().is_some() {
                best = Some((risk, i));
            }
        }
        ctx.read_only = all_read_only;
        if let Some((_, i)) = best {
            let seg = &segs[i];
            if let Some((start, sudo)) = seg.command_start() {
                let prog = basename(&seg.words[start]).to_string();
                let rest = &seg.words[start + 1..];
                let (sub, after) = subcommand_at(&prog, rest);
                let flags = salient_flags(&prog, &rest[after.min(rest.len())..]);
                let mut cmd = prog.clone();
                if let Some(s) = &sub {
                    cmd.push(' ');
                    cmd.push_str(s);
                }
                for f in &flags {
                    cmd.push(' ');
                    cmd.push_str(f);
                }
                ctx.command = Some(cmd);
                ctx.program = Some(prog);
                ctx.subcommand = sub;
                ctx.sudo = sudo
                    || segs
                        .iter()
                        .any(|s| s.command_start().is_some_and(|(_, su)| su));
            }
        }
        ctx.haystack = hay.join("\n");
        ctx.risk = risks.into_iter().max().unwrap_or(Risk::Low);
        ctx.risk_reasons = dedup(reasons);
    } else {
        ctx.read_only = host.read_only(tool);
        let mut lines = vec![tool.to_string()];
        flatten(args, "", &mut lines, &mut texts, &mut hosts);
        ctx.haystack = lines.join("\n");
        for t in &texts {
            if t.len() <= 200 {
                push_tokens(&mut tokens, t);
            } else if let Some(first) = t.lines().next() {
                push_tokens(&mut tokens, &first.chars().take(120).collect::<String>());
            }
        }
        push_tokens(&mut tokens, tool);
    }

    // Patterns that apply to any tool, on the whole text.
    for p in rules.risk_patterns.iter().filter(|p| p.scope == Scope::Any) {
        if p.regex.is_match(&ctx.haystack) && p.level > Risk::Low {
            raise(&mut ctx.risk, &mut ctx.risk_reasons, p.level, &p.name);
        }
    }

    // URLs and addresses anywhere.
    for t in &texts {
        for u in find_urls(t) {
            if !u.host.is_empty() {
                hosts.push(u.host.clone());
            }
            if !ctx.urls.contains(&u) {
                ctx.urls.push(u);
            }
        }
        for w in t.split(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '\'' | '(' | ')')) {
            if let Some(ip) = ip_in(w) {
                hosts.push(ip);
            }
        }
    }
    ctx.hosts = dedup(hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect());
    for h in ctx.hosts.clone() {
        if rules.prod_hosts.iter().any(|r| r.is_match(&h)) {
            raise(
                &mut ctx.risk,
                &mut ctx.risk_reasons,
                Risk::High,
                &format!("production host {h}"),
            );
        }
    }
    if ctx.sudo {
        raise(&mut ctx.risk, &mut ctx.risk_reasons, Risk::Medium, "sudo");
    }

    // Project: /Projects/<name> anywhere, else the worktree.
    let project_texts = texts
        .iter()
        .map(String::as_str)
        .chain(ctx.workdir.as_deref())
        .chain([sit.cwd]);
    ctx.project = project_texts
        .filter_map(project_in)
        .next()
        .or_else(|| Some(sit.worktree.to_string()).filter(|w| !w.is_empty()));
    if ctx.workdir.is_none() && !sit.cwd.is_empty() {
        ctx.workdir = Some(sit.cwd.to_string());
    }

    // Services by keyword; the primary one is the riskiest command's when it names one.
    let mut services: Vec<(usize, String)> = Vec::new();
    for (name, kws) in &rules.services {
        if let Some(pos) = tokens.iter().position(|t| kws.iter().any(|k| k == t)) {
            services.push((pos, name.clone()));
        }
    }
    let o = super::order(services.len(), &|a, b| services[a].0.cmp(&services[b].0));
    ctx.services = super::arrange(services, &o)
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    let prog_service = ctx.program.as_deref().and_then(|p| {
        let p = p.to_ascii_lowercase();
        rules
            .services
            .iter()
            .find(|(_, kws)| kws.contains(&p))
            .map(|(n, _)| n.clone())
    });
    ctx.service = prog_service.or_else(|| ctx.services.first().cloned());

    // Keywords: the command, service, project and host first, then salient words.
    let mut kw: Vec<String> = Vec::new();
    if let Some(p) = &ctx.program {
        kw.push(p.to_ascii_lowercase());
    }
    if let Some(s) = &ctx.subcommand {
        kw.extend(s.split(' ').map(|w| w.to_ascii_lowercase()));
    }
    kw.extend(ctx.services.iter().cloned());
    if let Some(p) = &ctx.project {
        kw.push(p.to_ascii_lowercase());
    }
    kw.extend(ctx.hosts.iter().take(2).cloned());
    for t in &tokens {
        if t.len() >= 3
            && t.chars().any(|c| c.is_ascii_alphabetic())
            && !t.starts_with('-')
            && !STOPWORDS.contains(&t.as_str())
        {
            kw.push(t.clone());
        }
    }
    let mut kw = dedup(kw);
    kw.truncate(MAX_KEYWORDS);
    ctx.keywords = kw;
    ctx
}

fn raise(risk: &mut Risk, reasons: &mut Vec<String>, level: Risk, why: &str) {
    if level > *risk {
        *risk = level;
    }
    if level > Risk::Low && !reasons.iter().any(|r| r == why) {
        reasons.push(why.to_string());
    }
}

/// First occurrences only, in order (the lists are short).
fn dedup(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// `program args…` of a segment (after wrappers), then its here-document on later lines.
pub fn canonical(seg: &Segment) -> String {
    match seg.command_start() {
        Some((start, _)) => {
            let mut s = basename(&seg.words[start]).to_string();
            for w in &seg.words[start + 1..] {
                s.push(' ');
                s.push_str(w);
            }
            s
        }
        None => seg.words.join(" "),
    }
}

fn segment_risk(seg: &Segment, canon: &str, rules: &Rules) -> (Risk, Vec<String>) {
    let mut risk = Risk::Low;
    let mut why = Vec::new();
    let text = if seg.heredoc.is_empty() {
        canon.to_string()
    } else {
        format!("{canon}\n{}", seg.heredoc)
    };
    for p in rules
        .risk_patterns
        .iter()
        .filter(|p| p.scope == Scope::Command)
    {
        if p.regex.is_match(&text) {
            raise(&mut risk, &mut why, p.level, &p.name);
        }
    }
    if let Some(h) = &seg.remote_host {
        let host = host_of_destination(h);
        if rules.prod_hosts.iter().any(|r| r.is_match(&host)) && risk > Risk::Low {
            raise(
                &mut risk,
                &mut why,
                Risk::Critical,
                &format!("{} on production host {host}", short(canon)),
            );
        }
    }
    (risk, why)
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// A segment that only reads: a read-only program or subcommand, no output to a file, no
/// command substitution.
pub fn segment_read_only(seg: &Segment, rules: &Rules) -> bool {
    !seg.has_substitution
        && seg.writes.iter().all(|w| {
            matches!(
                w.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "-"
            )
        })
        && command_read_only(seg, rules)
}

/// The program and subcommand only read (whatever the redirections and substitutions).
pub fn command_read_only(seg: &Segment, rules: &Rules) -> bool {
    let Some((start, _)) = seg.command_start() else {
        return true; // assignments only
    };
    let prog = basename(&seg.words[start]);
    let rest = &seg.words[start + 1..];
    // configured prefixes
    let words: Vec<&str> = std::iter::once(prog)
        .chain(rest.iter().map(String::as_str))
        .collect();
    if rules.read_only.iter().any(|p| {
        !p.is_empty() && p.len() <= words.len() && p.iter().zip(&words).all(|(a, b)| a == b)
    }) {
        return true;
    }
    if rest.len() == 1
        && matches!(
            rest[0].as_str(),
            "--version" | "-V" | "--help" | "-h" | "version"
        )
    {
        return true;
    }
    match prog {
        "find" => {
            return !rest.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "-delete"
                        | "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-fprint"
                        | "-fprint0"
                        | "-fprintf"
                        | "-fls"
                )
            })
        }
        "sort" => return !rest.iter().any(|w| w == "-o" || w.starts_with("--output")),
        "hostname" => {
            return rest
                .iter()
                .all(|w| w.starts_with('-') && w != "-F" && w != "--file")
        }
        "env" | "printenv" if start + 1 < seg.words.len() && prog == "env" => return false,
        _ => {}
    }
    if READ_ONLY_PROGRAMS.contains(&prog) {
        return true;
    }
    if prog == "git" {
        let sub = subcommand("git", rest);
        let args: Vec<&str> = positional_after_sub("git", rest);
        match sub.as_deref() {
            Some("branch") => {
                return rest.iter().skip(1).all(|w| {
                    matches!(
                        w.as_str(),
                        "-a" | "-r"
                            | "-v"
                            | "-vv"
                            | "--list"
                            | "-l"
                            | "--show-current"
                            | "--all"
                            | "--remotes"
                            | "--merged"
                            | "--no-merged"
                            | "--contains"
                    )
                })
            }
            Some("remote") => {
                return args
                    .iter()
                    .all(|w| matches!(*w, "-v" | "--verbose" | "show" | "get-url"))
            }
            Some("tag") => return args.iter().all(|w| matches!(*w, "-l" | "--list" | "-n")),
            Some("config") => {
                return rest.iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "--get" | "--get-all" | "--list" | "-l" | "--get-regexp"
                    )
                })
            }
            _ => {}
        }
    }
    let Some((_, subs)) = READ_ONLY_SUBCOMMANDS.iter().find(|(p, _)| *p == prog) else {
        return false;
    };
    let Some(sub) = subcommand(prog, rest) else {
        return false;
    };
    subs.iter().any(|s| match s.strip_prefix("* ") {
        Some(prefix) => sub
            .split(' ')
            .nth(1)
            .is_some_and(|op| op.starts_with(prefix)),
        None => {
            sub == *s
                || (prog == "redis-cli" && sub.eq_ignore_ascii_case(s))
                || sub.starts_with(&format!("{s} "))
        }
    })
}

fn positional_after_sub<'a>(program: &str, rest: &'a [String]) -> Vec<&'a str> {
    let spec = SUB_SPECS.iter().find(|s| s.program == program);
    let (short, long) = spec.map(|s| (s.short, s.long)).unwrap_or(("", &[]));
    let i = skip_opts(rest, 0, short, long);
    rest.iter().skip(i + 1).map(String::as_str).collect()
}

fn skip_opts(words: &[String], mut i: usize, short: &str, long: &[&str]) -> usize {
    while let Some(w) = words.get(i) {
        if let Some(l) = w.strip_prefix("--") {
            i += 1;
            if !l.is_empty() && !l.contains('=') && long.contains(&l) {
                i += 1;
            }
            continue;
        }
        if w.len() > 1 && w.starts_with('-') {
            i += 1;
            let flags: Vec<char> = w[1..].chars().collect();
            if flags.len() == 1 && short.contains(flags[0]) {
                i += 1;
            }
            continue;
        }
        break;
    }
    i
}

/// The subcommand of a program with subcommands (`push`, `compose up`, `s3 rm`).
pub fn subcommand(program: &str, rest: &[String]) -> Option<String> {
    subcommand_at(program, rest).0
}

/// The subcommand and the index in `rest` after it (0 when there is none).
fn subcommand_at(program: &str, rest: &[String]) -> (Option<String>, usize) {
    let Some(spec) = SUB_SPECS.iter().find(|s| s.program == program) else {
        return (None, 0);
    };
    let i = skip_opts(rest, 0, spec.short, spec.long);
    let Some(first) = rest.get(i) else {
        return (None, 0);
    };
    if first.contains('/') || first.contains('=') {
        return (None, 0);
    }
    if !(spec.two_words)(first) {
        return (Some(first.clone()), i + 1);
    }
    let (short, long): (&str, &[&str]) = if program == "docker" && first == "compose" {
        (
            "fp",
            &[
                "file",
                "project-name",
                "env-file",
                "profile",
                "project-directory",
                "ansi",
                "progress",
            ],
        )
    } else {
        (spec.short, spec.long)
    };
    let j = skip_opts(rest, i + 1, short, long);
    match rest.get(j) {
        Some(second) if !second.contains('/') => (Some(format!("{first} {second}")), j + 1),
        _ => (Some(first.clone()), i + 1),
    }
}

fn salient_flags(program: &str, rest: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if program == "rm" {
        let mut r = false;
        let mut f = false;
        for w in rest.iter().filter(|w| w.starts_with('-')) {
            match w.as_str() {
                "--recursive" => r = true,
                "--force" => f = true,
                s if !s.starts_with("--") => {
                    r |= s.contains('r') || s.contains('R');
                    f |= s.contains('f');
                }
                _ => {}
            }
        }
        match (r, f) {
            (true, true) => out.push("-rf".into()),
            (true, false) => out.push("-r".into()),
            (false, true) => out.push("-f".into()),
            _ => {}
        }
        return out;
    }
    for w in rest {
        let flag = w.split('=').next().unwrap_or(w);
        let short = SALIENT_SHORT
            .iter()
            .any(|(p, f)| *p == program && f.contains(&flag));
        if (short || SALIENT_FLAGS.contains(&flag)) && !out.iter().any(|o| o == flag) {
            out.push(flag.to_string());
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

/// `user@host:path` → `host`; `[v6]:22` → `v6`.
pub fn host_of_destination(d: &str) -> String {
    let d = d.strip_prefix("ssh://").unwrap_or(d);
    let d = d.rsplit('@').next().unwrap_or(d);
    if let Some(rest) = d.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest).to_string();
    }
    if d.parse::<Ipv6Addr>().is_ok() {
        return d.to_string();
    }
    d.split([':', '/']).next().unwrap_or(d).to_string()
}

fn looks_like_host(h: &str) -> bool {
    if h.is_empty() || h.len() > 253 {
        return false;
    }
    if h.parse::<Ipv4Addr>().is_ok() || h.parse::<Ipv6Addr>().is_ok() {
        return true;
    }
    if !h
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        || h.starts_with(['-', '.'])
    {
        return false;
    }
    match h.rsplit_once('.') {
        Some((_, tld)) => {
            tld.len() >= 2
                && tld.chars().all(|c| c.is_ascii_alphabetic())
                && !FILE_EXTENSIONS.contains(&tld.to_ascii_lowercase().as_str())
        }
        // a bare name (`db1`, `localhost`) only where a host is expected
        None => h.chars().any(|c| c.is_ascii_alphabetic()),
    }
}

/// Hosts named by a segment: network programs' destinations, `-h` of database clients,
/// `--host`-style options, `user@host` destinations, `host:path` of scp/rsync.
fn segment_hosts(seg: &Segment) -> Vec<String> {
    let mut out = Vec::new();
    let Some((start, _)) = seg.command_start() else {
        return out;
    };
    let prog = basename(&seg.words[start]);
    let rest = &seg.words[start + 1..];
    if let Some(h) = &seg.remote_host {
        out.push(host_of_destination(h));
    }
    let mut i = 0;
    while i < rest.len() {
        let w = &rest[i];
        if let Some(l) = w.strip_prefix("--") {
            let (name, val) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (l, None),
            };
            if HOST_OPTIONS_LONG.contains(&name) {
                let v = val.or_else(|| rest.get(i + 1).cloned());
                if let Some(v) = v {
                    let h = host_of_destination(v.split("://").last().unwrap_or(&v));
                    if looks_like_host(&h) {
                        out.push(h);
                    }
                }
            }
        } else if H_IS_HOST.contains(&prog) && w.starts_with("-h") {
            let v = if w.len() > 2 {
                Some(w[2..].to_string())
            } else {
                rest.get(i + 1).cloned()
            };
            if let Some(v) = v.filter(|v| looks_like_host(v)) {
                out.push(v);
            }
        }
        i += 1;
    }
    match prog {
        "ssh" | "mosh" | "ssh-copy-id" => {
            if let (Some(d), _) = shell::ssh_parts(rest) {
                let h = host_of_destination(&d);
                if looks_like_host(&h) {
                    out.push(h);
                }
            }
        }
        "scp" | "rsync" | "sftp" => {
            for a in rest.iter().filter(|a| !a.starts_with('-')) {
                let dest = a.strip_prefix("rsync://").unwrap_or(a);
                if dest.contains('@') || (dest.contains(':') && !dest.starts_with('/')) {
                    let h = host_of_destination(dest);
                    if looks_like_host(&h) && !h.contains('/') {
                        out.push(h);
                    }
                }
            }
        }
        p if NETWORK_PROGRAMS.contains(&p) => {
            for a in rest
                .iter()
                .filter(|a| !a.starts_with('-') && !a.contains("://"))
            {
                let h = host_of_destination(a);
                if looks_like_host(&h) && h.contains('.') {
                    out.push(h);
                }
            }
        }
        "git" => {
            // scp-like remotes: git@github.com:org/repo.git
            for a in rest
                .iter()
                .filter(|a| a.contains('@') && a.contains(':') && !a.contains("://"))
            {
                let h = host_of_destination(a);
                if looks_like_host(&h) {
                    out.push(h);
                }
            }
        }
        _ => {}
    }
    out
}

/// An IPv4 or IPv6 address (optionally `:port`, `[v6]:port`, `user@`) in a word.
fn ip_in(w: &str) -> Option<String> {
    let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '.' | ')' | '(' | '"' | '\''));
    let w = w.rsplit('@').next().unwrap_or(w);
    if let Some(rest) = w.strip_prefix('[') {
        let inner = rest.split(']').next()?;
        return inner.parse::<Ipv6Addr>().ok().map(|a| a.to_string());
    }
    if w.matches(':').count() >= 2 {
        return w.parse::<Ipv6Addr>().ok().map(|a| a.to_string());
    }
    let host = w.split([':', '/']).next()?;
    host.parse::<Ipv4Addr>().ok().map(|a| a.to_string())
}

/// Every `scheme://host/path` in a text.
pub fn find_urls(text: &str) -> Vec<UrlRef> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find("://") {
        let at = from + pos;
        let scheme_start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .last()
            .map(|(i, _)| i)
            .unwrap_or(at);
        let scheme = &text[scheme_start..at];
        let rest = &text[at + 3..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | ']' | ',')
            })
            .unwrap_or(rest.len());
        let url = &rest[..end];
        from = at + 3 + end;
        if scheme.is_empty()
            || !scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
        {
            continue;
        }
        let auth_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        let authority = &url[..auth_end];
        let host = host_of_destination(authority);
        let path_part = &url[auth_end..];
        let path = path_part.split(['?', '#']).next().unwrap_or("");
        let path = if path.is_empty() { "/" } else { path };
        let host = host.to_ascii_lowercase();
        // a URL's authority is a host whatever its last label (`docs.rs`)
        let valid = !host.is_empty()
            && (host.parse::<Ipv6Addr>().is_ok()
                || host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'));
        if !valid {
            continue; // `file:///x`, `a://` or garbage
        }
        out.push(UrlRef {
            scheme: scheme.to_ascii_lowercase(),
            host,
            path: path.to_string(),
        });
    }
    out
}

/// `/Projects/<name>` in a path or command (case-insensitive `projects`).
pub fn project_in(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("/projects/") {
        let start = from + pos + "/projects/".len();
        let name: String = text[start..]
            .chars()
            .take_while(|c| {
                !matches!(
                    c,
                    '/' | '\\' | '"' | '\'' | ' ' | '\n' | '\t' | ':' | ';' | ')'
                )
            })
            .collect();
        if !name.is_empty() && name != "." && name != ".." {
            return Some(name);
        }
        from = start;
    }
    None
}

/// Lowercase word tokens (`[a-z0-9_-]`, plus dots inside) of a text, appended in order.
fn push_tokens(out: &mut Vec<String>, text: &str) {
    for t in text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|t| t.trim_matches(|c| c == '.' || c == '-'))
        .filter(|t| !t.is_empty() && t.len() <= 64)
    {
        let t = t.to_lowercase();
        // `nginx.conf` also names `nginx`
        if t.contains('.') && !t.chars().all(|c| c.is_ascii_digit() || c == '.') {
            for part in t.split('.').filter(|p| !p.is_empty()) {
                if !FILE_EXTENSIONS.contains(&part) {
                    out.push(part.to_string());
                }
            }
        }
        out.push(t);
    }
}

/// Flatten non-shell arguments to `key: value` lines; collect strings and host-ish values.
fn flatten(
    v: &Value,
    prefix: &str,
    lines: &mut Vec<String>,
    texts: &mut Vec<String>,
    hosts: &mut Vec<String>,
) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if let Value::String(s) = x {
                    let lk = k.to_ascii_lowercase();
                    if matches!(
                        lk.as_str(),
                        "host" | "hostname" | "server" | "endpoint" | "target"
                    ) {
                        let h = host_of_destination(s.split("://").last().unwrap_or(s));
                        if looks_like_host(&h) {
                            hosts.push(h);
                        }
                    }
                }
                flatten(x, &key, lines, texts, hosts);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(x, &format!("{prefix}.{i}"), lines, texts, hosts);
            }
        }
        Value::String(s) => {
            lines.push(format!("{prefix}: {s}"));
            texts.push(s.clone());
        }
        Value::Null => {}
        other => lines.push(format!("{prefix}: {other}")),
    }
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
