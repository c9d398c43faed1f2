//! The enforcement settings: the `enforcement` object of the configuration (after
//! [`super::schema::validate`]), with defaults, compiled once (regexes) at start.
//!
//! Sources: `.opencode/hookwise.json` in the project root and the plugin options; both are
//! validated against the shipped schema; options win (objects merged key by key, arrays
//! replace). See [`super::load_config`].

use super::re::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::{Risk, RiskPattern, Rules, Scope};
use super::schema::Issue;

/// An enforcement level (global, or the rule of one category).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Disabled,
    Advisory,
    Category,
    Strict,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "disabled" => Some(Level::Disabled),
            "advisory" => Some(Level::Advisory),
            "category" => Some(Level::Category),
            "strict" => Some(Level::Strict),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Disabled => "disabled",
            Level::Advisory => "advisory",
            Level::Category => "category",
            Level::Strict => "strict",
        }
    }
}

/// What a piece of knowledge is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Process,
    Security,
    Credentials,
    Gotchas,
    Technical,
    General,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::Process,
        Category::Security,
        Category::Credentials,
        Category::Gotchas,
        Category::Technical,
        Category::General,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Process => "process",
            Category::Security => "security",
            Category::Credentials => "credentials",
            Category::Gotchas => "gotchas",
            Category::Technical => "technical",
            Category::General => "general",
        }
    }

    /// A category from a tag, folder or front-matter word (singular/plural and common
    /// synonyms). `None` when the word names none.
    pub fn from_word(w: &str) -> Option<Category> {
        let w = w.trim().to_ascii_lowercase();
        Some(match w.as_str() {
            "process" | "processes" | "procedure" | "procedures" | "sop" | "sops" | "runbook"
            | "runbooks" | "playbook" | "playbooks" | "workflow" | "workflows" => Category::Process,
            "security" | "secure" | "sec" | "vulnerability" | "vulnerabilities" => {
                Category::Security
            }
            "credentials" | "credential" | "creds" | "secrets" | "secret" | "keys" | "auth" => {
                Category::Credentials
            }
            "gotchas" | "gotcha" | "pitfalls" | "pitfall" | "lessons" | "lessons-learned"
            | "incidents" | "incident" | "postmortems" | "postmortem" => Category::Gotchas,
            "technical" | "tech" | "architecture" | "design" | "decisions" | "adr" | "adrs" => {
                Category::Technical
            }
            "general" | "misc" | "notes" => Category::General,
            _ => return None,
        })
    }
}

/// The confidence each level's action needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    pub strict: f64,
    pub category: f64,
    pub advisory: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemorySettings {
    pub enabled: bool,
    pub min_risk: Risk,
    pub max_results: u32,
    pub mode: String,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub level: Level,
    /// The rule of each category, indexed by `Category as usize`.
    pub categories: [Level; 6],
    pub thresholds: Thresholds,
    pub category_min_risk: Risk,
    pub deadline_ms: u64,
    pub cooldown_ms: u64,
    /// The option (the env variable is looked at by [`super::Enforcer::start`]).
    pub bypass: bool,
    pub sop_folders: Vec<String>,
    pub sop_refresh_ms: u64,
    pub sections: Vec<String>,
    pub max_message_chars: usize,
    pub max_advice_chars: usize,
    pub memory: MemorySettings,
    pub rules: Rules,
    pub state_file: String,
    pub metrics_file: String,
    pub metrics: bool,
}

/// The built-in risk patterns: (name, regex, level, scope).
pub const DEFAULT_RISK_PATTERNS: &[(&str, &str, Risk, Scope)] = &[
    (
        "rm -rf on / or ~",
        r"^rm\s+(.*\s)?(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(.*\s)?(/|/\*|~|~/|\$HOME|\.|\.\.|\*)(\s|$)",
        Risk::Critical,
        Scope::Command,
    ),
    (
        "recursive rm",
        r"^rm\s+(.*\s)?(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "git push --force",
        r"^git\s+(.*\s)?push\s+(.*\s)?(--force|-f|--force-with-lease)(\s|=|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "git push +refspec",
        r"^git\s+(.*\s)?push\s+.*\s\+\S",
        Risk::High,
        Scope::Command,
    ),
    (
        "git push",
        r"^git\s+(.*\s)?push(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "git reset --hard",
        r"^git\s+(.*\s)?reset\s+(.*\s)?--hard",
        Risk::High,
        Scope::Command,
    ),
    (
        "git clean -f",
        r"^git\s+(.*\s)?clean\s+(.*\s)?-[a-zA-Z]*f",
        Risk::High,
        Scope::Command,
    ),
    (
        "git branch -D",
        r"^git\s+(.*\s)?branch\s+(.*\s)?(-D|--delete\s+--force)(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "git rebase",
        r"^git\s+(.*\s)?rebase(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "DROP TABLE/DATABASE",
        r"(?i)\bdrop\s+(table|database|schema)\b",
        Risk::Critical,
        Scope::Any,
    ),
    (
        "TRUNCATE TABLE",
        r"(?i)\btruncate\s+table\b",
        Risk::High,
        Scope::Any,
    ),
    (
        "DELETE FROM",
        r"(?i)\bdelete\s+from\b",
        Risk::High,
        Scope::Any,
    ),
    (
        "disk wipe",
        r"^(mkfs(\.\w+)?|fdisk|parted|wipefs|shred)(\s|$)|^dd\s.*\bof=/dev/",
        Risk::Critical,
        Scope::Command,
    ),
    (
        "shutdown/reboot",
        r"^(shutdown|reboot|halt|poweroff)(\s|$)",
        Risk::Critical,
        Scope::Command,
    ),
    (
        "terraform destroy",
        r"^(terraform|tofu)\s+(.*\s)?destroy(\s|$)",
        Risk::Critical,
        Scope::Command,
    ),
    (
        "terraform apply",
        r"^(terraform|tofu)\s+(.*\s)?apply(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "kubectl delete",
        r"^kubectl\s+(.*\s)?delete(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "kubectl change",
        r"^kubectl\s+(.*\s)?(apply|replace|patch|scale|rollout|drain|cordon|edit|set)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "helm change",
        r"^helm\s+(.*\s)?(install|upgrade|uninstall|rollback|delete)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "docker prune",
        r"^docker\s+((system|volume|image|container|network|builder)\s+)?prune(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "docker change",
        r"^(docker\s+(compose\s+)?|docker-compose\s+)(.*\s)?(up|down|rm|rmi|stop|kill|restart)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "systemctl change",
        r"^systemctl\s+(.*\s)?(stop|restart|disable|mask|kill|reload|start|enable)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "remote shell/copy",
        r"^(ssh|scp|rsync|sftp|mosh)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "package publish",
        r"^(npm|pnpm|yarn|cargo|twine|gem)\s+(.*\s)?publish(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "chmod 777",
        r"^chmod\s+(.*\s)?(-R\s+)?0?777(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "recursive chown/chmod",
        r"^(chown|chmod)\s+(.*\s)?-R(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "HTTP write",
        r"^curl\s.*(-X\s*|--request\s+)(POST|PUT|DELETE|PATCH)\b",
        Risk::Medium,
        Scope::Command,
    ),
    (
        "aws delete",
        r"^aws\s+\S+\s+(rm|rb|delete-\S*|terminate-\S*|remove-\S*)(\s|$)",
        Risk::High,
        Scope::Command,
    ),
    (
        "redis flush",
        r"(?i)^redis-cli\s+(.*\s)?(flushall|flushdb)(\s|$)",
        Risk::Critical,
        Scope::Command,
    ),
    (
        "database client",
        r"^(psql|mysql|mariadb|mongo|mongosh|redis-cli|sqlite3)(\s|$)",
        Risk::Medium,
        Scope::Command,
    ),
];

/// The built-in keyword → service map.
pub const DEFAULT_SERVICES: &[(&str, &[&str])] = &[
    ("git", &["git", "gh"]),
    (
        "docker",
        &[
            "docker",
            "docker-compose",
            "dockerfile",
            "podman",
            "podman-compose",
        ],
    ),
    (
        "kubernetes",
        &[
            "kubectl",
            "kubernetes",
            "k8s",
            "helm",
            "kustomize",
            "minikube",
            "k9s",
        ],
    ),
    (
        "postgres",
        &[
            "postgres",
            "postgresql",
            "psql",
            "pg_dump",
            "pg_restore",
            "pg_dumpall",
            "pg_ctl",
            "pgbouncer",
        ],
    ),
    ("mysql", &["mysql", "mysqldump", "mariadb"]),
    ("redis", &["redis", "redis-cli", "redis-server"]),
    ("nginx", &["nginx"]),
    ("systemd", &["systemctl", "systemd", "journalctl"]),
    ("terraform", &["terraform", "tofu", "terragrunt"]),
    ("aws", &["aws", "eksctl", "cloudformation"]),
    ("gcp", &["gcloud", "gsutil"]),
    ("azure", &["az"]),
    ("ansible", &["ansible", "ansible-playbook"]),
];

pub const DEFAULT_PROD_HOSTS: &[&str] = &[r"(?i)(^|[.-])(prod|production|prd|live)([.-]|\d|$)"];
pub const DEFAULT_SECTIONS: &[&str] = &["preflight", "gotchas", "credentials", "rollback"];

fn default_rules() -> Rules {
    Rules {
        services: DEFAULT_SERVICES
            .iter()
            .map(|(n, k)| (n.to_string(), k.iter().map(|s| s.to_string()).collect()))
            .collect(),
        risk_patterns: DEFAULT_RISK_PATTERNS
            .iter()
            .filter_map(|(name, re, level, scope)| {
                Some(RiskPattern {
                    name: name.to_string(),
                    regex: Regex::new(re).ok()?,
                    level: *level,
                    scope: *scope,
                })
            })
            .collect(),
        prod_hosts: DEFAULT_PROD_HOSTS
            .iter()
            .filter_map(|r| Regex::new(r).ok())
            .collect(),
        read_only: Vec::new(),
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            level: Level::Category,
            // process, security, credentials, gotchas, technical, general
            categories: [
                Level::Strict,
                Level::Strict,
                Level::Strict,
                Level::Category,
                Level::Advisory,
                Level::Advisory,
            ],
            thresholds: Thresholds {
                strict: 0.5,
                category: 0.7,
                advisory: 0.3,
            },
            category_min_risk: Risk::Medium,
            deadline_ms: 150,
            cooldown_ms: 600_000,
            bypass: false,
            // the host-neutral folder and OpenCode's (a missing folder is no SOPs)
            sop_folders: vec![".hookwise/sops".into(), ".opencode/sops".into()],
            sop_refresh_ms: 1000,
            sections: DEFAULT_SECTIONS.iter().map(|s| s.to_string()).collect(),
            max_message_chars: 4000,
            max_advice_chars: 1500,
            memory: MemorySettings {
                enabled: true,
                min_risk: Risk::Medium,
                max_results: 6,
                mode: "Hybrid".into(),
            },
            rules: default_rules(),
            state_file: ".opencode/hookwise/state.json".into(),
            metrics_file: ".opencode/hookwise/metrics.jsonl".into(),
            metrics: true,
        }
    }
}

impl Settings {
    /// The rule of a category.
    pub fn rule(&self, c: Category) -> Level {
        self.categories[c as usize]
    }

    /// Settings from the (schema-validated) `enforcement` object. Anything still unusable
    /// (it should not be, after validation) is reported under `file` and left at its default.
    pub fn from_value(e: &Value, file: &str, issues: &mut Vec<Issue>) -> Settings {
        let mut s = Settings::default();
        let Some(e) = e.as_object() else {
            return s;
        };
        let mut bad = |key: &str, why: &str| {
            issues.push(Issue {
                file: file.to_string(),
                key: format!("enforcement.{key}"),
                why: why.to_string(),
            })
        };
        let level = |v: Option<&Value>| v.and_then(Value::as_str).and_then(Level::parse);
        let risk = |v: Option<&Value>| v.and_then(Value::as_str).and_then(Risk::parse);
        let uint = |v: Option<&Value>| {
            v.and_then(Value::as_f64)
                .filter(|f| *f >= 0.0)
                .map(|f| f as u64)
        };
        let strings = |v: Option<&Value>| {
            v.and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
        };

        if let Some(l) = level(e.get("level")) {
            s.level = l;
        }
        if let Some(c) = e.get("categories").and_then(Value::as_object) {
            for cat in Category::ALL {
                if let Some(l) = level(c.get(cat.as_str())) {
                    s.categories[cat as usize] = l;
                }
            }
        }
        if let Some(t) = e.get("thresholds").and_then(Value::as_object) {
            let get = |k: &str| {
                t.get(k)
                    .and_then(Value::as_f64)
                    .filter(|f| (0.0..=1.0).contains(f))
            };
            if let Some(v) = get("strict") {
                s.thresholds.strict = v;
            }
            if let Some(v) = get("category") {
                s.thresholds.category = v;
            }
            if let Some(v) = get("advisory") {
                s.thresholds.advisory = v;
            }
            if s.thresholds.advisory > s.thresholds.strict.min(s.thresholds.category) {
                bad(
                    "thresholds",
                    "advisory is above a blocking threshold: findings between them would block without ever being advised; kept as given",
                );
            }
        }
        if let Some(r) = risk(e.get("categoryMinRisk")) {
            s.category_min_risk = r;
        }
        if let Some(v) = uint(e.get("deadlineMs")) {
            s.deadline_ms = v;
        }
        if let Some(v) = uint(e.get("cooldownMs")) {
            s.cooldown_ms = v;
        }
        if let Some(b) = e.get("bypass").and_then(Value::as_bool) {
            s.bypass = b;
        }
        if let Some(v) = strings(e.get("sopFolders")) {
            s.sop_folders = v;
        }
        if let Some(v) = uint(e.get("sopRefreshMs")) {
            s.sop_refresh_ms = v;
        }
        if let Some(v) = strings(e.get("sections")) {
            s.sections = v.into_iter().map(|x| x.to_ascii_lowercase()).collect();
        }
        if let Some(v) = uint(e.get("maxMessageChars")) {
            s.max_message_chars = (v as usize).clamp(500, 4000);
        }
        if let Some(v) = uint(e.get("maxAdviceChars")) {
            s.max_advice_chars = (v as usize).clamp(200, 4000);
        }
        if let Some(m) = e.get("memory").and_then(Value::as_object) {
            if let Some(b) = m.get("enabled").and_then(Value::as_bool) {
                s.memory.enabled = b;
            }
            if let Some(r) = risk(m.get("minRisk")) {
                s.memory.min_risk = r;
            }
            if let Some(n) = uint(m.get("maxResults")) {
                s.memory.max_results = n.clamp(1, 20) as u32;
            }
            if let Some(mode) = m.get("mode").and_then(Value::as_str) {
                s.memory.mode = mode.to_string();
            }
        }
        if let Some(m) = e.get("services").and_then(Value::as_object) {
            for (name, kws) in m {
                let kws: Vec<String> = kws
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(|k| k.to_lowercase())
                            .collect()
                    })
                    .unwrap_or_default();
                s.rules.services.retain(|(n, _)| n != name);
                if !kws.is_empty() {
                    s.rules.services.push((name.clone(), kws));
                }
            }
        }
        let mut patterns = Vec::new();
        if let Some(a) = e.get("riskPatterns").and_then(Value::as_array) {
            for (i, p) in a.iter().enumerate() {
                let re = p.get("pattern").and_then(Value::as_str).unwrap_or("");
                let Some(level) = risk(p.get("level")) else {
                    bad(
                        &format!("riskPatterns[{i}].level"),
                        "is missing or not a risk level; pattern ignored",
                    );
                    continue;
                };
                let scope = match p.get("scope").and_then(Value::as_str) {
                    Some("any") => Scope::Any,
                    _ => Scope::Command,
                };
                match Regex::new(re) {
                    Ok(regex) => patterns.push(RiskPattern {
                        name: p
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or(re)
                            .to_string(),
                        regex,
                        level,
                        scope,
                    }),
                    Err(err) => bad(
                        &format!("riskPatterns[{i}].pattern"),
                        &format!("is not a valid regex: {}", super::schema::regex_error(&err)),
                    ),
                }
            }
        }
        if e.get("replaceDefaultRiskPatterns").and_then(Value::as_bool) == Some(true) {
            s.rules.risk_patterns = patterns;
        } else {
            // the user's first: a user pattern and a default with the same name keep the user's
            let mut all = patterns;
            all.append(&mut s.rules.risk_patterns);
            s.rules.risk_patterns = all;
        }
        if let Some(a) = strings(e.get("prodHosts")) {
            s.rules.prod_hosts = a.iter().filter_map(|r| Regex::new(r).ok()).collect();
        }
        if let Some(a) = strings(e.get("readOnlyCommands")) {
            s.rules.read_only = a
                .iter()
                .map(|c| c.split_whitespace().map(str::to_string).collect())
                .collect();
        }
        if let Some(v) = e.get("stateFile").and_then(Value::as_str) {
            s.state_file = v.to_string();
        }
        if let Some(v) = e.get("metricsFile").and_then(Value::as_str) {
            s.metrics_file = v.to_string();
        }
        if let Some(b) = e.get("metrics").and_then(Value::as_bool) {
            s.metrics = b;
        }
        s
    }
}

/// Merge `over` into `base`: objects key by key (recursively), anything else replaced.
pub fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod hostile_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_compile() {
        let s = Settings::default();
        assert_eq!(
            s.rules.risk_patterns.len(),
            DEFAULT_RISK_PATTERNS.len(),
            "every default regex compiles"
        );
        assert_eq!(s.rules.prod_hosts.len(), 1);
        assert_eq!(s.rule(Category::Gotchas), Level::Category);
        assert_eq!(s.rule(Category::Process), Level::Strict);
        assert_eq!(s.rule(Category::General), Level::Advisory);
    }

    #[test]
    fn values_apply_and_merge() {
        let mut issues = vec![];
        let s = Settings::from_value(
            &json!({
                "level": "strict",
                "categories": {"technical": "disabled"},
                "thresholds": {"strict": 0.8},
                "services": {"billing": ["Stripe"], "aws": []},
                "riskPatterns": [{"pattern": "^make deploy", "level": "critical", "name": "deploy"}],
                "readOnlyCommands": ["make help"],
                "sections": ["Preflight"]
            }),
            "f",
            &mut issues,
        );
        assert!(issues.is_empty());
        assert_eq!(s.level, Level::Strict);
        assert_eq!(s.rule(Category::Technical), Level::Disabled);
        assert_eq!(s.thresholds.strict, 0.8);
        assert_eq!(s.thresholds.advisory, 0.3);
        assert!(s
            .rules
            .services
            .iter()
            .any(|(n, k)| n == "billing" && k == &["stripe"]));
        assert!(!s.rules.services.iter().any(|(n, _)| n == "aws"));
        assert_eq!(s.rules.risk_patterns[0].name, "deploy");
        assert_eq!(s.rules.risk_patterns.len(), DEFAULT_RISK_PATTERNS.len() + 1);
        assert_eq!(
            s.rules.read_only,
            vec![vec!["make".to_string(), "help".to_string()]]
        );
        assert_eq!(s.sections, vec!["preflight"]);

        let s = Settings::from_value(
            &json!({"replaceDefaultRiskPatterns": true, "riskPatterns": []}),
            "f",
            &mut issues,
        );
        assert!(s.rules.risk_patterns.is_empty());

        let mut base = json!({"a": 1, "e": {"level": "strict", "x": [1, 2]}});
        merge(&mut base, &json!({"e": {"x": [3]}, "b": 2}));
        assert_eq!(
            base,
            json!({"a": 1, "b": 2, "e": {"level": "strict", "x": [3]}})
        );
    }

    #[test]
    fn user_patterns_use_perl_classes_and_case_folding() {
        // \s, \w, \b and (?i) must work in configured patterns (ASCII semantics)
        let mut issues = vec![];
        let s = Settings::from_value(
            &json!({"riskPatterns": [{"pattern": "(?i)^make\\s+deploy\\b.*\\bprod\\w*", "level": "critical"}],
                    "replaceDefaultRiskPatterns": true}),
            "f",
            &mut issues,
        );
        assert!(issues.is_empty(), "{issues:?}");
        let re = &s.rules.risk_patterns[0].regex;
        assert!(re.is_match("MAKE  deploy TARGET=production"));
        assert!(!re.is_match("make deployment prod"));
    }

    #[test]
    fn odd_thresholds_are_reported() {
        let mut issues = vec![];
        Settings::from_value(&json!({"thresholds": {"advisory": 0.9}}), "f", &mut issues);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].key, "enforcement.thresholds");
    }
}
