//! The project's judges (`scripts/judges/`) and the Python that runs them,
//! for end-to-end tests that hand what Relay sent to code Relay did not
//! write (see `scripts/judges/README.md`).
//!
//! The interpreter is the one of the test environment that `scripts/test`
//! (the README's test command) makes and exports as `RELAY_TEST_PYTHON`.
//! When that variable is unset, the environment `scripts/test` leaves in
//! the repository (`.test-env/venv`) is used, so a single crate's tests run
//! with plain `cargo test -p …` once `scripts/test` has run. Without either,
//! [`Judges::find`] panics with a message saying how to get one: a test
//! that needs a judge never passes because the judge is missing, and never
//! runs on whatever `python3` happens to be installed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Recorded;

/// The variable `scripts/test` sets to the test environment's interpreter.
pub const PYTHON_ENV: &str = "RELAY_TEST_PYTHON";

/// The repository's root (this crate is `crates/relay-receiver`).
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

/// The test environment's Python interpreter; panics (saying how to make
/// one) when there is none.
pub fn python() -> PathBuf {
    python_from(std::env::var_os(PYTHON_ENV), &repo_root()).unwrap_or_else(|why| panic!("{why}"))
}

/// The interpreter that `RELAY_TEST_PYTHON` (`var`) names, else the one of
/// `root`'s `.test-env/venv`; why there is none otherwise.
fn python_from(var: Option<OsString>, root: &Path) -> Result<PathBuf, String> {
    let (path, from) = match var {
        Some(p) if !p.is_empty() => (PathBuf::from(p), format!("{PYTHON_ENV} names")),
        _ => (
            root.join(".test-env/venv/bin/python"),
            format!("{PYTHON_ENV} is unset, and the default is"),
        ),
    };
    if path.is_file() {
        return Ok(path);
    }
    Err(format!(
        "no Python test environment: {from} {}, which does not exist. \
         Run the README's test command, `scripts/test` (it makes the environment \
         with the judges' packages, sets {PYTHON_ENV} and runs every suite), or \
         `scripts/test --setup-only` once before `cargo test -p …`",
        path.display()
    ))
}

/// The judges and the interpreter that runs them.
#[derive(Debug, Clone)]
pub struct Judges {
    python: PathBuf,
    dir: PathBuf,
}

impl Judges {
    /// `scripts/judges` with the test environment's Python; panics when
    /// either is missing.
    pub fn find() -> Judges {
        let dir = repo_root().join("scripts/judges");
        for script in ["swh_judge.py", "ce_validate.py", "traceparent_check.py"] {
            assert!(
                dir.join(script).is_file(),
                "the judge {script} is missing from {}",
                dir.display()
            );
        }
        Judges {
            python: python(),
            dir,
        }
    }

    /// The interpreter (for other Python checks of a test).
    pub fn python(&self) -> &Path {
        &self.python
    }

    /// Runs `script` (a file of `scripts/judges`) with `args`; returns
    /// whether the judge accepts, and its output for an assertion message.
    ///
    /// A judge accepts with exit status 0 and refuses with 1, printing its
    /// verdict as JSON either way. Anything else (a traceback, a missing
    /// package, a usage error) is no verdict, and panics: a test asserting
    /// a refusal must not pass because the judge could not run.
    pub fn run(&self, script: &str, args: &[&str]) -> (bool, String) {
        let out = Command::new(&self.python)
            .arg(self.dir.join(script))
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.python.display()));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let text = format!(
            "{script} {args:?} -> {}\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let verdict = serde_json::from_str::<serde_json::Value>(&stdout).is_ok();
        match out.status.code() {
            Some(0) if verdict => (true, text),
            Some(1) if verdict => (false, text),
            _ => panic!("the judge gave no verdict:\n{text}"),
        }
    }

    /// Runs `script`'s `--selftest` (known good and bad inputs, or the
    /// official SDK's client against it); panics with its output unless
    /// every verdict is right.
    pub fn selftest(&self, script: &str) {
        let out = Command::new(&self.python)
            .arg(self.dir.join(script))
            .arg("--selftest")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.python.display()));
        assert!(
            out.status.success(),
            "{script} --selftest -> {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Writes `request` as a captured request and runs `script` on it with
    /// `args` before the file name.
    pub fn judge(&self, script: &str, args: &[&str], request: &Recorded) -> (bool, String) {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let file = tmp.path().join("request.json");
        request
            .write_judge_json(&file)
            .expect("write the captured request");
        let file = file.to_str().expect("a UTF-8 temporary path");
        let mut all = args.to_vec();
        all.push(file);
        self.run(script, &all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_is_an_error_that_says_what_to_run() {
        let root = tempfile::tempdir().unwrap();
        let named = python_from(Some("/nonexistent/python".into()), root.path()).unwrap_err();
        assert!(
            named.contains("RELAY_TEST_PYTHON names /nonexistent/python"),
            "{named}"
        );
        assert!(named.contains("scripts/test"), "{named}");
        let unset = python_from(None, root.path()).unwrap_err();
        assert!(unset.contains(".test-env/venv/bin/python"), "{unset}");
        // An empty variable is an unset one.
        assert!(python_from(Some("".into()), root.path()).is_err());
    }

    #[test]
    fn the_named_interpreter_comes_before_the_repository_one() {
        let root = tempfile::tempdir().unwrap();
        let venv = root.path().join(".test-env/venv/bin");
        std::fs::create_dir_all(&venv).unwrap();
        std::fs::write(venv.join("python"), "").unwrap();
        let other = root.path().join("other-python");
        std::fs::write(&other, "").unwrap();
        assert_eq!(python_from(None, root.path()).unwrap(), venv.join("python"));
        assert_eq!(
            python_from(Some(other.clone().into()), root.path()).unwrap(),
            other
        );
    }

    /// "Judges" run by `sh`, so no Python is needed to test the verdicts.
    fn sh_judges(scripts: &[(&str, &str)]) -> (tempfile::TempDir, Judges) {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in scripts {
            std::fs::write(dir.path().join(name), body).unwrap();
        }
        let judges = Judges {
            python: PathBuf::from("/bin/sh"),
            dir: dir.path().to_path_buf(),
        };
        (dir, judges)
    }

    #[test]
    fn a_verdict_is_json_with_status_0_or_1() {
        let (_dir, j) = sh_judges(&[
            ("accepts", "echo '{\"ok\": true}'"),
            ("refuses", "echo '{\"ok\": false}'; exit 1"),
        ]);
        assert!(j.run("accepts", &[]).0);
        assert!(!j.run("refuses", &[]).0);
    }

    #[test]
    #[should_panic(expected = "the judge gave no verdict")]
    fn a_judge_that_crashes_is_no_refusal() {
        // What a missing package looks like: a traceback and status 1.
        let (_dir, j) = sh_judges(&[(
            "crashes",
            "echo 'ModuleNotFoundError: No module named standardwebhooks' >&2; exit 1",
        )]);
        j.run("crashes", &[]);
    }

    #[test]
    #[should_panic(expected = "the judge gave no verdict")]
    fn a_usage_error_is_no_verdict() {
        let (_dir, j) = sh_judges(&[("usage", "echo '{}'; exit 2")]);
        j.run("usage", &[]);
    }
}
