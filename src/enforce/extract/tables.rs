//! The fixed knowledge [`super`] reads commands with: read-only programs and subcommands,
//! how each program's subcommand is found, salient flags, network programs, host options,
//! file extensions and stop words. Data only.

pub(super) const READ_ONLY_PROGRAMS: &[&str] = &[
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

/// Programs besides the read-only ones whose arguments are data: they never run them as
/// commands (what they run through options, `git -c core.pager=…`, is read separately).
pub(super) const DATA_PROGRAMS: &[&str] = &[
    "git", "cp", "mv", "mkdir", "touch", "rm", "rmdir", "ln", "chmod", "chown", "chgrp", "tee",
    "sort", "gh", "curl", "wget", "kill",
];

/// Subcommands that only read, by program. A `*` entry: any subcommand starting with the rest.
pub(super) const READ_ONLY_SUBCOMMANDS: &[(&str, &[&str])] = &[
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
pub(super) struct SubSpec {
    pub(super) program: &'static str,
    pub(super) short: &'static str,
    pub(super) long: &'static [&'static str],
    pub(super) two_words: fn(&str) -> bool,
}

pub(super) fn never(_: &str) -> bool {
    false
}
pub(super) fn always(_: &str) -> bool {
    true
}

pub(super) const SUB_SPECS: &[SubSpec] = &[
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
pub(super) const SALIENT_FLAGS: &[&str] = &[
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
pub(super) const SALIENT_SHORT: &[(&str, &[&str])] = &[
    ("git", &["-f", "-D"]),
    ("chmod", &["-R"]),
    ("chown", &["-R"]),
    ("chgrp", &["-R"]),
    ("cp", &["-r", "-R"]),
];

/// Programs whose positional arguments are hosts (or `user@host[:path]`).
pub(super) const NETWORK_PROGRAMS: &[&str] = &[
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
pub(super) const HOST_OPTIONS_LONG: &[&str] = &["host", "hostname", "server", "endpoint"];
/// Programs whose `-h` is a host (database clients).
pub(super) const H_IS_HOST: &[&str] = &[
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
pub(super) const FILE_EXTENSIONS: &[&str] = &[
    "md", "rs", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "yaml", "yml", "toml", "txt", "py",
    "sh", "go", "java", "c", "h", "cpp", "hpp", "cc", "lock", "log", "html", "css", "scss", "sql",
    "conf", "cfg", "ini", "env", "xml", "csv", "png", "jpg", "jpeg", "gif", "svg", "gz", "tgz",
    "tar", "zip", "exe", "dll", "so", "wasm", "rb", "php", "swift", "kt", "lua", "pl", "vue",
    "svelte", "bak", "tmp", "pem", "key", "crt", "pid", "sock", "service", "timer", "d", "o", "a",
    "out", "bin", "img", "iso", "pdf", "doc", "tf", "tfvars", "hcl", "proto",
];

pub(super) const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "from", "into", "then", "else", "true", "false",
    "null", "none", "not", "you", "are", "was", "has", "have", "will", "can", "all", "any", "but",
    "our", "out", "use", "using", "via", "per", "new", "old", "tmp", "dev", "usr", "bin", "etc",
    "var", "home", "src", "lib", "opt", "local", "share", "null",
];

pub(super) const MAX_KEYWORDS: usize = 12;
