//! Tidy: the workspace's architecture rules (docs/ARCHITECTURE.md), held by
//! a test that reads the sources.
//!
//! - dependencies point down: each crate's `[dependencies]` name only
//!   crates of a lower layer ([`LAYERS`]);
//! - SQL is written only in `relay-store`, and only it links a database
//!   driver;
//! - no library or binary source file is over 600 lines, except the ones
//!   [`LONG_FILES`] names, each with the reason it is still long;
//! - relay-core, the engine and the API never name a destination kind (its
//!   variant, its config type or its module): they reach it through
//!   `relay-destinations`' dispatch, except where [`NAMES_A_KIND`] says;
//!   and a kind is its folder and its lines in `relay-destinations/src/lib.rs`
//!   (the test-only `local_dir` kind shows it);
//! - what comments and docs name exists: a source path
//!   (`relay-store/src/retention.rs`) names a file, and a Rust path into a
//!   workspace crate (`relay_store::retention::purge_before`) starts with
//!   a name that crate defines.
//!
//! "Only `relay-net` opens outbound sockets" is `relay-net/tests/tidy.rs`.
//! Test code (`tests/`, `tests.rs` modules, examples, benches) is not held
//! to the length rule.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each workspace crate's layer: a crate depends only on crates of lower
/// layers. The test tools (`relay-receiver`, `relay-bench`,
/// `relay-compliance`) sit where their own dependencies put them; the
/// `relay` binary links the receiver and the bench for its `receive` and
/// `bench` commands.
const LAYERS: &[(&str, u8)] = &[
    ("relay-core", 0),
    ("relay-verify", 0),
    ("relay-inbound", 1),
    ("relay-net", 1),
    ("relay-receiver", 1),
    ("relay-store", 2),
    ("relay-destinations", 2),
    ("relay-engine", 3),
    ("relay-bench", 3),
    ("relay-api", 4),
    ("relay-compliance", 4),
    ("relay", 5),
];

/// Library and binary files allowed over [`MAX_LINES`], and why. Each is
/// a debt: the entry goes when the file is split.
const LONG_FILES: &[(&str, &str)] = &[(
    "relay-api/src/server.rs",
    "the accept loop and its limits read top to bottom; the settings type could move out",
)];

const MAX_LINES: usize = 600;

/// The crates that never name a destination kind: they reach a kind only
/// through `relay-destinations`' dispatch (docs/ARCHITECTURE.md, "Adding a
/// destination kind"); relay-core knows only the generic `Destination`.
const KIND_BLIND: &[&str] = &["relay-core", "relay-engine", "relay-api"];

/// Where a [`KIND_BLIND`] crate names a kind all the same (the file, and
/// the name as written), and why.
const NAMES_A_KIND: &[(&str, &str, &str)] = &[(
    "relay-api/src/routes/portal/endpoints.rs",
    "relay_destinations::https",
    "the portal's endpoints are HTTPS by product rule",
)];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

fn crate_dirs() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(workspace_root().join("crates"))
        .expect("crates/ directory")
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    out.sort();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `crates/<name>/src/…` as `<name>/src/…`.
fn short(path: &Path) -> String {
    let crates = workspace_root().join("crates");
    path.strip_prefix(&crates)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A test module inside `src/` (`tests.rs`, `…/tests/…`).
fn is_test_code(short: &str) -> bool {
    short.ends_with("/tests.rs") || short.contains("/tests/")
}

/// The workspace crates named in the `[dependencies]` table of a manifest.
fn production_dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut in_table = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_table = line == "[dependencies]";
            continue;
        }
        if in_table && line.starts_with("relay") {
            let name: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            deps.push(name);
        }
    }
    deps
}

#[test]
fn dependencies_point_down() {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut failures = Vec::new();
    for (name, dir) in crate_dirs() {
        let Some(&layer) = layers.get(name.as_str()) else {
            failures.push(format!("{name}: not in LAYERS (give it a layer)"));
            continue;
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for dep in production_dependencies(&manifest) {
            match layers.get(dep.as_str()) {
                Some(&below) if below < layer => {}
                Some(&other) => failures.push(format!(
                    "{name} (layer {layer}) depends on {dep} (layer {other}): dependencies point down"
                )),
                None => failures.push(format!("{name} depends on {dep}, which is not in LAYERS")),
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// `(line number, the literal's start)` of string literals in `text` that
/// begin an SQL statement.
fn sql_literals(text: &str) -> Vec<(usize, String)> {
    const STARTS: &[&str] = &[
        "SELECT ",
        "INSERT INTO ",
        "UPDATE ",
        "DELETE FROM ",
        "CREATE TABLE",
        "CREATE INDEX",
        "ALTER TABLE",
        "WITH ",
        "BEGIN IMMEDIATE",
    ];
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices('"') {
            let rest = &line[at + 1..];
            let Some(start) = STARTS.iter().find(|s| rest.starts_with(**s)) else {
                continue;
            };
            // `SELECT` is a Redis command too: a query reads `FROM`
            // somewhere, on this line or a continued one.
            let query = *start != "SELECT " || rest.contains(" FROM ") || rest.ends_with('\\');
            if query {
                found.push((index + 1, start.trim().to_string()));
            }
        }
    }
    found
}

#[test]
fn only_relay_store_has_sql() {
    let mut failures = Vec::new();
    for (name, dir) in crate_dirs() {
        if name == "relay-store" {
            continue;
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for driver in ["sqlx", "rusqlite", "tokio-postgres", "postgres ="] {
            if manifest.lines().any(|l| l.trim_start().starts_with(driver)) {
                failures.push(format!("{name}/Cargo.toml: links `{driver}`"));
            }
        }
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (line, start) in sql_literals(&text) {
                failures.push(format!(
                    "{}:{line}: an SQL statement (`{start} …`): SQL lives in relay-store",
                    short(&file)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn source_files_stay_short() {
    let mut failures = Vec::new();
    let mut still_long = Vec::new();
    for (_, dir) in crate_dirs() {
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for file in files {
            let name = short(&file);
            if is_test_code(&name) {
                continue;
            }
            let lines = std::fs::read_to_string(&file)
                .unwrap_or_default()
                .lines()
                .count();
            let excepted = LONG_FILES.iter().any(|(f, _)| *f == name);
            if lines > MAX_LINES && !excepted {
                failures.push(format!(
                    "{name}: {lines} lines (at most {MAX_LINES}: split it by meaning)"
                ));
            }
            if excepted && lines <= MAX_LINES {
                still_long.push(format!(
                    "{name}: {lines} lines now, take it out of LONG_FILES"
                ));
            }
        }
    }
    for (f, _) in LONG_FILES {
        if !workspace_root().join("crates").join(f).is_file() {
            still_long.push(format!("{f}: in LONG_FILES but gone"));
        }
    }
    failures.extend(still_long);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Source paths (`relay-x/src/….rs`) named in `text`.
fn source_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("relay") {
            let tail = &rest[at..];
            let path: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '.'))
                .collect();
            let path = path.trim_end_matches('.').to_string();
            if path.contains("/src/") && path.ends_with(".rs") && !path.contains('*') {
                found.push((index + 1, path.clone()));
            }
            rest = &tail[path.len().max(5)..];
        }
    }
    found
}

/// Rust paths into workspace crates (`relay_store::retention`), as the
/// crate's directory name and the path's first segment.
fn crate_paths(text: &str) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("relay_") {
            let before = rest[..at].chars().last();
            let tail = &rest[at..];
            let krate: String = tail
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            let after = &tail[krate.len()..];
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && let Some(path) = after.strip_prefix("::")
            {
                let segment: String = path
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !segment.is_empty() {
                    found.push((index + 1, krate.replace('_', "-"), segment));
                }
            }
            rest = &tail[krate.len().max(6)..];
        }
    }
    found
}

/// Whether `name` is defined (a module, an item, a re-export or a macro)
/// anywhere in `sources`.
fn defines(sources: &str, name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "mod ",
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "macro_rules! ",
        "union ",
    ];
    let word = |s: &str, at: usize| {
        let end = at + name.len();
        s[end..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    };
    for kw in KEYWORDS {
        let needle = format!("{kw}{name}");
        if sources
            .match_indices(&needle)
            .any(|(at, _)| word(sources, at + kw.len()))
        {
            return true;
        }
    }
    // Re-exports: `pub use x::name;`, `pub use x::{a, name};`, `as name`.
    sources.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("pub use ") || l.starts_with("pub(crate) use ") || l.starts_with("    "))
            && (l.contains(&format!("::{name};"))
                || l.contains(&format!("::{name},"))
                || l.contains(&format!(" {name},"))
                || l.contains(&format!(" {name}}}"))
                || l.contains(&format!("{{{name},"))
                || l.contains(&format!("{{{name}}}"))
                || l.contains(&format!(" as {name}")))
    })
}

#[test]
fn what_comments_and_docs_name_exists() {
    let root = workspace_root();
    let crates: BTreeMap<String, PathBuf> = crate_dirs().into_iter().collect();
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    for (name, dir) in &crates {
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let text: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap_or_default())
            .collect();
        sources.insert(name.clone(), text.join("\n"));
    }
    // The texts read: every source file's comments, and the docs.
    let mut texts: Vec<(String, String)> = Vec::new();
    for dir in crates.values() {
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for f in files {
            let comments: Vec<String> = std::fs::read_to_string(&f)
                .unwrap_or_default()
                .lines()
                .map(|l| match l.find("//") {
                    Some(at) => l[at..].to_string(),
                    None => String::new(),
                })
                .collect();
            texts.push((short(&f), comments.join("\n")));
        }
    }
    for doc in std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
    {
        if doc.path().extension().is_some_and(|e| e == "md") {
            texts.push((
                format!("docs/{}", doc.file_name().to_string_lossy()),
                std::fs::read_to_string(doc.path()).unwrap_or_default(),
            ));
        }
    }
    texts.push((
        "README.md".into(),
        std::fs::read_to_string(root.join("README.md")).unwrap_or_default(),
    ));
    let mut failures = Vec::new();
    let (mut paths_checked, mut names_checked) = (0, 0);
    for (file, text) in &texts {
        for (line, path) in source_paths(text) {
            paths_checked += 1;
            let path = path.trim_start_matches("crates/");
            if !root.join("crates").join(path).is_file() {
                failures.push(format!("{file}:{line}: `{path}` does not exist"));
            }
        }
        for (line, krate, segment) in crate_paths(text) {
            let Some(src) = sources.get(&krate) else {
                continue;
            };
            names_checked += 1;
            if !defines(src, &segment) {
                failures.push(format!(
                    "{file}:{line}: `{}::{segment}`: {krate} defines no `{segment}`",
                    krate.replace('-', "_")
                ));
            }
        }
    }
    // The scan reads what it should (65 paths and 173 names in December 2026).
    assert!(
        paths_checked > 40 && names_checked > 100,
        "{paths_checked} paths, {names_checked} names"
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The kinds as `relay-destinations` lists them (its `kinds!`
/// invocation): each kind's variant and module.
fn kinds(lib: &str) -> Vec<(String, String)> {
    let Some(at) = lib.find("\nkinds! {").or_else(|| lib.find("::kinds! {")) else {
        return Vec::new();
    };
    lib[at..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .filter_map(|l| {
            let (variant, kind) = l.trim().trim_end_matches(',').split_once(" => ")?;
            let (module, _) = kind.split_once("::")?;
            Some((variant.to_string(), module.to_string()))
        })
        .collect()
}

/// `(line number, name)` of the names of a kind in `text`'s code (not its
/// comments): `Destination::<Variant>`, `Config::<Variant>`,
/// `Client::<Variant>`, `Delivery::<Variant>`, `<Variant>Destination` (the
/// config type) and `relay_destinations::<module>`.
fn kind_names(text: &str, kinds: &[(String, String)]) -> Vec<(usize, String)> {
    let mut names = Vec::new();
    for (variant, module) in kinds {
        for prefix in ["Destination::", "Config::", "Client::", "Delivery::"] {
            names.push(format!("{prefix}{variant}"));
        }
        names.push(format!("{variant}Destination"));
        names.push(format!("relay_destinations::{module}"));
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for name in &names {
            let hit = line.match_indices(name.as_str()).any(|(at, _)| {
                !line[..at].chars().last().is_some_and(ident)
                    && !line[at + name.len()..].chars().next().is_some_and(ident)
            });
            if hit {
                found.push((index + 1, name.clone()));
            }
        }
    }
    found
}

#[test]
fn engine_and_api_name_no_kind() {
    let root = workspace_root().join("crates");
    let lib = std::fs::read_to_string(root.join("relay-destinations/src/lib.rs")).unwrap();
    let kinds = kinds(&lib);
    assert!(
        kinds.iter().any(|(v, m)| v == "Https" && m == "https"),
        "the kinds! list of relay-destinations/src/lib.rs was not read: {kinds:?}"
    );
    let allowed: Vec<(&str, &str)> = NAMES_A_KIND.iter().map(|(f, n, _)| (*f, *n)).collect();
    let mut failures = Vec::new();
    let mut used = Vec::new();
    for krate in KIND_BLIND {
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        for file in files {
            let name = short(&file);
            if is_test_code(&name) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (line, kind) in kind_names(&text, &kinds) {
                if allowed.contains(&(name.as_str(), kind.as_str())) {
                    used.push((name.clone(), kind));
                } else {
                    failures.push(format!(
                        "{name}:{line}: names a destination kind (`{kind}`): go through relay-destinations' dispatch (a `Kind` method)"
                    ));
                }
            }
        }
    }
    for (file, kind) in &allowed {
        if !used.iter().any(|(f, k)| f == file && k == kind) {
            failures.push(format!(
                "{file}: no longer names `{kind}`: take it out of the exceptions"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The test-only kind `local_dir` is what adding a kind takes: its file
/// (`relay-destinations/src/local_dir.rs`, its configuration included), its
/// `mod` line and its line in the `kinds!` list; no other library or binary
/// source names it, and no other crate has its `test-kinds` feature.
#[test]
fn a_test_kind_is_its_file_and_its_lines() {
    let root = workspace_root().join("crates");
    let own = "relay-destinations/src/local_dir.rs";
    let lines = [
        "pub mod local_dir;",
        "LocalDir => local_dir::LocalDir [batching],",
    ];
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for (name, dir) in crate_dirs() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if name != "relay-destinations" && manifest.lines().any(|l| l.starts_with("test-kinds")) {
            failures.push(format!(
                "{name}/Cargo.toml: defines the `test-kinds` feature"
            ));
        }
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for file in files {
            let short = short(&file);
            if is_test_code(&short) || short == own {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (index, line) in text.lines().enumerate() {
                let code = line.trim();
                if code.starts_with("//")
                    || !(code.contains("local_dir") || code.contains("LocalDir"))
                {
                    continue;
                }
                if short == "relay-destinations/src/lib.rs" && lines.contains(&code) {
                    seen.push(code.to_string());
                } else {
                    failures.push(format!(
                        "{short}:{}: names the test-only kind: {code}",
                        index + 1
                    ));
                }
            }
        }
    }
    assert!(root.join(own).is_file(), "{own} is gone: update this test");
    for line in lines {
        if !seen.iter().any(|l| l == line) {
            failures.push(format!("relay-destinations/src/lib.rs: no line `{line}`"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_scanners_catch_what_they_should() {
    let sql = "let q = \"SELECT id FROM messages\";\nlet s = \"selected\";\n\
               x.execute(\"UPDATE endpoints SET\");\n\
               \"SELECT this database first (Redis)\"";
    let lines: Vec<usize> = sql_literals(sql).iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![1, 3]);
    assert_eq!(
        production_dependencies(
            "[dependencies]\nrelay-core.workspace = true\nserde = \"1\"\n\
             [dev-dependencies]\nrelay-store = { path = \"..\" }\n"
        ),
        vec!["relay-core".to_string()]
    );
    let paths =
        source_paths("see `relay-store/src/retention.rs`, and crates/relay-net/src/guard.rs.");
    assert_eq!(
        paths.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>(),
        vec!["relay-store/src/retention.rs", "relay-net/src/guard.rs"]
    );
    let named = crate_paths("/// `relay_store::retention::purge_before` and relay_core::model.");
    assert_eq!(
        named
            .iter()
            .map(|(_, k, s)| format!("{k}:{s}"))
            .collect::<Vec<_>>(),
        vec!["relay-store:retention", "relay-core:model"]
    );
    assert!(defines(
        "pub mod retention;\nfn purge_before() {}",
        "retention"
    ));
    assert!(defines("pub use crate::x::{Claimed, Scope};", "Scope"));
    assert!(!defines("pub mod retentions;", "retention"));
    let listed =
        kinds("mod x;\n\ndispatch::kinds! {\n    Https => https::Https,\n    S3 => s3::S3,\n}\n");
    assert_eq!(
        listed,
        vec![
            ("Https".to_string(), "https".to_string()),
            ("S3".to_string(), "s3".to_string())
        ]
    );
    let named = kind_names(
        "let d = Destination::S3(c);\n// Destination::Https in a comment\n\
         use relay_destinations::https::portal;\nlet x = HttpsDestination { url };\n\
         relay_destinations::s3batch(); Destination::Https2; MyDestination::S3;\n\
         d.kind(); Client::Https(c); Config::S3(s)",
        &listed,
    );
    assert_eq!(
        named,
        vec![
            (1, "Destination::S3".to_string()),
            (3, "relay_destinations::https".to_string()),
            (4, "HttpsDestination".to_string()),
            (6, "Client::Https".to_string()),
            (6, "Config::S3".to_string()),
        ]
    );
    assert!(is_test_code("relay-core/src/shape/tests.rs"));
    assert!(!is_test_code("relay-core/src/shape.rs"));
}
