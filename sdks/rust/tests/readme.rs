//! The README shows the quickstart that the end-to-end test runs
//! (crates/relay/tests/sdk_rust.rs), verbatim.

#[test]
fn the_readme_shows_the_quickstart_verbatim() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let example =
        std::fs::read_to_string(root.join("examples/quickstart.rs")).expect("the example");
    assert!(
        readme.contains(&format!("```rust\n{example}```")),
        "README.md does not show examples/quickstart.rs as it is"
    );
}
