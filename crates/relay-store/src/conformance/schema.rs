//! The schema against the binary: `schema_status` says current, behind or
//! newer; the migrator refuses a database newer than the binary, and a
//! destructive migration unless allowed.

use crate::ExecutorExt;
use crate::migrate::{self, MIGRATIONS, Migration, Options, SchemaStatus};
use crate::{Store, StoreError};

const ADD: &str = "CREATE TABLE relay_schema_probe (id TEXT PRIMARY KEY, note TEXT);";
const DROP: &str = "-- relay: destructive\nALTER TABLE relay_schema_probe DROP COLUMN note;";

/// The binary's migrations and then `extra`: a binary of a later version.
fn later(extra: &[Migration]) -> &'static [Migration] {
    let mut all: Vec<Migration> = MIGRATIONS
        .iter()
        .map(|m| Migration {
            version: m.version,
            name: m.name,
            postgres: m.postgres,
            sqlite: m.sqlite,
        })
        .collect();
    for m in extra {
        all.push(Migration {
            version: m.version,
            name: m.name,
            postgres: m.postgres,
            sqlite: m.sqlite,
        });
    }
    Box::leak(all.into_boxed_slice())
}

async fn apply(
    s: &dyn Store,
    list: &'static [Migration],
    options: Options,
) -> Result<(), StoreError> {
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move { migrate::apply_list(&mut x, list, options).await })
    })
    .await
}

pub async fn the_schema_is_checked_against_the_binary_and_destructive_steps_wait(s: &dyn Store) {
    let latest = MIGRATIONS.iter().map(|m| m.version).max().unwrap();
    assert_eq!(
        s.schema_status().await.unwrap(),
        SchemaStatus::Current { version: latest }
    );

    // A later binary's additive migration: this database is behind it.
    let additive = later(&[Migration {
        version: 9001,
        name: "probe",
        postgres: ADD,
        sqlite: ADD,
    }]);
    let destructive = later(&[
        Migration {
            version: 9001,
            name: "probe",
            postgres: ADD,
            sqlite: ADD,
        },
        Migration {
            version: 9002,
            name: "probe_drop_note",
            postgres: DROP,
            sqlite: DROP,
        },
    ]);
    assert!(destructive[destructive.len() - 1].destructive());
    assert!(
        MIGRATIONS.iter().all(|m| !m.destructive()),
        "none shipped is destructive"
    );
    let no_destructive = Options {
        allow_destructive: false,
    };
    apply(s, additive, no_destructive).await.unwrap();

    // This binary now meets a newer schema: it says so, and will not migrate it.
    match s.schema_status().await.unwrap() {
        SchemaStatus::Newer { known, unknown } => {
            assert_eq!((known, unknown), (latest, vec![9001]));
        }
        other => panic!("expected a newer schema, got {other:?}"),
    }
    let err = s.migrate().await.unwrap_err();
    assert!(matches!(err, StoreError::Schema(_)), "{err}");
    assert!(err.to_string().contains("newer than this binary"), "{err}");

    // The destructive step waits for an explicit permission, and nothing
    // of its transaction is applied meanwhile.
    let err = apply(s, destructive, no_destructive).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("9002 (probe_drop_note) is destructive"),
        "{err}"
    );
    assert_eq!(
        migrate::status_of(&[9001], &destructive[destructive.len() - 2..]),
        SchemaStatus::Behind {
            applied: Some(9001),
            pending: vec![(9002, "probe_drop_note", true)],
        }
    );
    apply(s, destructive, Options::ALL).await.unwrap();
    apply(s, destructive, no_destructive).await.unwrap();
}
