//! Building SQL: [`SqlBuilder`] (numbered placeholders, values always
//! bound, batches as padded `VALUES` lists or arrays), [`Bind`], and the
//! few SQL fragments and row helpers every aggregate module shares.
//!
//! SQL uses `$N` placeholders, which both backends bind by number (the
//! SQLite writer rewrites them, see `crate::sqlite`).

/// A value bound to a dynamically built query.
#[derive(Debug, Clone)]
pub enum Bind {
    Text(String),
    Int(i64),
    OptInt(Option<i64>),
    OptText(Option<String>),
    /// A column of values, bound as one array (`text[]` on PostgreSQL; see
    /// [`SqlBuilder::rows`]).
    Texts(Vec<Option<String>>),
    /// A column of values, bound as one array (`bigint[]` on PostgreSQL).
    Ints(Vec<Option<i64>>),
}

impl From<&str> for Bind {
    fn from(v: &str) -> Self {
        Bind::Text(v.to_string())
    }
}
impl From<&String> for Bind {
    fn from(v: &String) -> Self {
        Bind::Text(v.clone())
    }
}
impl From<String> for Bind {
    fn from(v: String) -> Self {
        Bind::Text(v)
    }
}
impl From<i64> for Bind {
    fn from(v: i64) -> Self {
        Bind::Int(v)
    }
}
impl From<Option<i64>> for Bind {
    fn from(v: Option<i64>) -> Self {
        Bind::OptInt(v)
    }
}
impl From<&Option<String>> for Bind {
    fn from(v: &Option<String>) -> Self {
        Bind::OptText(v.clone())
    }
}
impl From<Option<String>> for Bind {
    fn from(v: Option<String>) -> Self {
        Bind::OptText(v)
    }
}
impl From<Option<&str>> for Bind {
    fn from(v: Option<&str>) -> Self {
        Bind::OptText(v.map(str::to_string))
    }
}
/// A time is bound as its milliseconds.
impl From<relay_core::time::Timestamp> for Bind {
    fn from(v: relay_core::time::Timestamp) -> Self {
        Bind::Int(v.millis())
    }
}
impl From<Option<relay_core::time::Timestamp>> for Bind {
    fn from(v: Option<relay_core::time::Timestamp>) -> Self {
        Bind::OptInt(v.map(relay_core::time::Timestamp::millis))
    }
}

impl Bind {
    /// A NULL of the same SQL type.
    fn null_like(&self) -> Bind {
        match self {
            Bind::Text(_) | Bind::OptText(_) => Bind::OptText(None),
            Bind::Int(_) | Bind::OptInt(_) => Bind::OptInt(None),
            Bind::Texts(_) => Bind::Texts(Vec::new()),
            Bind::Ints(_) => Bind::Ints(Vec::new()),
        }
    }

    /// An array of values as JSON text, for a backend without arrays: SQLite
    /// is never handed one (its transactions use `VALUES` lists), but every
    /// value has a meaning there.
    pub fn json_array(&self) -> Option<String> {
        match self {
            Bind::Texts(v) => serde_json::to_string(v).ok(),
            Bind::Ints(v) => serde_json::to_string(v).ok(),
            _ => None,
        }
    }
}

/// Messages inserted per statement when a publish fans out (15 values a row,
/// well under both backends' limits on bound parameters).
pub const FANOUT_CHUNK: usize = 200;

/// A message to insert for an event (see `insert_messages`).
pub struct NewMessage<'a> {
    pub tenant_id: &'a str,
    pub environment: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub endpoint_id: &'a str,
    /// The endpoint's version at fan-out (see `Message::endpoint_version`).
    pub endpoint_version: i64,
    pub state: relay_core::model::MessageState,
    /// Created (and, when scheduled, due) at.
    pub at: relay_core::time::Timestamp,
    /// Leased at once (`in_flight`) to this owner until then (see
    /// [`crate::Intake`]).
    pub lease: Option<(&'a str, relay_core::time::Timestamp)>,
    /// The event's time-to-live end (see `expire_due`).
    pub expires_at: Option<relay_core::time::Timestamp>,
    /// Its ordering key and place in the key's line (`crate::ordering`),
    /// when its endpoint delivers in order.
    pub ordering: Option<(&'a str, i64)>,
}

/// Events inserted per statement (13 values a row).
pub const EVENT_CHUNK: usize = 100;

/// Completions (and attempt records) written per statement.
pub const COMPLETION_CHUNK: usize = 100;

/// The latency histogram's time unit.
pub const HOUR_MILLIS: i64 = 3_600_000;

/// Builds SQL with numbered placeholders; values are always bound, never
/// interpolated.
#[derive(Debug, Default)]
pub struct SqlBuilder {
    pub sql: String,
    pub binds: Vec<Bind>,
}

impl SqlBuilder {
    pub fn new(sql: &str) -> Self {
        SqlBuilder {
            sql: sql.to_string(),
            binds: Vec::new(),
        }
    }
    pub fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }
    /// Hand-written SQL whose placeholders `$1`, `$2`, … take `binds` in
    /// order (a placeholder may appear more than once).
    pub fn numbered(sql: &str, binds: impl IntoIterator<Item = Bind>) -> Self {
        SqlBuilder {
            sql: sql.to_string(),
            binds: binds.into_iter().collect(),
        }
    }
    /// [`SqlBuilder::numbered`] with a fixed number of values, each
    /// anything a [`Bind`] is made `From`.
    pub fn of<const N: usize>(sql: &str, binds: [Bind; N]) -> Self {
        Self::numbered(sql, binds)
    }
    /// Appends a placeholder for `value`.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        // Written in place: a VALUES list has hundreds of placeholders.
        self.sql.push('$');
        self.sql
            .push_str(itoa::Buffer::new().format(self.binds.len()));
        self
    }
    /// Binds `value` without appending its placeholder; returns the
    /// placeholder, for SQL that uses one value in several places.
    pub fn param(&mut self, value: Bind) -> String {
        self.binds.push(value);
        format!("${}", self.binds.len())
    }
    /// Appends placeholders for `values`, separated by commas (a VALUES
    /// row's contents, an `IN (…)` list).
    pub fn bind_list(&mut self, values: impl IntoIterator<Item = Bind>) -> &mut Self {
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.bind(v);
        }
        self
    }
    /// Appends an `IN (…)` list's placeholders for `values`, padded to the
    /// next power of two by repeating the last value: the statement then
    /// has one text per power of two instead of one per list length (see
    /// [`SqlBuilder::values_padded`]).
    pub fn bind_list_padded(&mut self, values: impl IntoIterator<Item = Bind>) -> &mut Self {
        let mut values: Vec<Bind> = values.into_iter().collect();
        if let Some(last) = values.last().cloned() {
            values.resize(values.len().next_power_of_two(), last);
        }
        self.bind_list(values)
    }
    /// Appends `rows` as a `VALUES` list's rows, padded with rows of typed
    /// NULLs to the next power of two (at most `max`). A statement then has
    /// one text per power of two instead of one per batch size, so it is
    /// prepared once and stays in the statement caches (SQLite's writer,
    /// each PostgreSQL connection), and PostgreSQL may settle on a generic
    /// plan. The statement must ignore the padding, whose every column is
    /// NULL (`WHERE v.id IS NOT NULL`, or a join on `v.id`).
    pub fn values_padded(&mut self, rows: Vec<Vec<Bind>>, max: usize) -> &mut Self {
        let n = rows.len();
        let to = if n == 0 {
            0
        } else {
            n.next_power_of_two().min(max).max(n)
        };
        let nulls: Vec<Bind> = rows
            .first()
            .map(|r| r.iter().map(Bind::null_like).collect())
            .unwrap_or_default();
        let columns = nulls.len();
        // `, ($1234` and `, $1234` for each value: one allocation, not a
        // doubling per few rows.
        self.sql.reserve(to * (columns * 7 + 4));
        self.binds.reserve(to * columns);
        let padding = std::iter::repeat_n(nulls, to - n);
        for (i, row) in rows.into_iter().chain(padding).enumerate() {
            self.push(if i == 0 { "(" } else { ", (" })
                .bind_list(row)
                .push(")");
        }
        self
    }
    /// Appends `rows` as the body of a `WITH v (…) AS (…)` relation: a
    /// padded `VALUES` list (see [`SqlBuilder::values_padded`]), or, when
    /// `arrays` (PostgreSQL), `SELECT * FROM UNNEST($1::text[], …)` with
    /// one array per column. The arrays make one statement text for every
    /// batch size, with a dozen parameters instead of a thousand to bind
    /// and plan. Every row must have the same columns of the same types (a
    /// column's type is its first row's); the statement must ignore rows
    /// whose every column is NULL, as for the padding.
    pub fn rows(&mut self, rows: Vec<Vec<Bind>>, max: usize, arrays: bool) -> &mut Self {
        if !arrays || rows.is_empty() {
            return self.push("VALUES ").values_padded(rows, max);
        }
        let mut columns: Vec<Bind> = rows[0]
            .iter()
            .map(|b| match b {
                Bind::Text(_) | Bind::OptText(_) => Bind::Texts(Vec::with_capacity(rows.len())),
                Bind::Int(_) | Bind::OptInt(_) => Bind::Ints(Vec::with_capacity(rows.len())),
                Bind::Texts(_) | Bind::Ints(_) => b.null_like(),
            })
            .collect();
        for row in rows {
            for (column, value) in columns.iter_mut().zip(row) {
                match (column, value) {
                    (Bind::Texts(c), Bind::Text(v)) => c.push(Some(v)),
                    (Bind::Texts(c), Bind::OptText(v)) => c.push(v),
                    (Bind::Ints(c), Bind::Int(v)) => c.push(Some(v)),
                    (Bind::Ints(c), Bind::OptInt(v)) => c.push(v),
                    // A value of another type than its column's first row
                    // is the caller's bug: tests (debug builds) stop on it;
                    // a release build binds NULL, which a NOT NULL column
                    // rejects.
                    (Bind::Texts(c), _) => {
                        debug_assert!(false, "a value of another type in a text column");
                        c.push(None)
                    }
                    (Bind::Ints(c), _) => {
                        debug_assert!(false, "a value of another type in an integer column");
                        c.push(None)
                    }
                    _ => {}
                }
            }
        }
        self.push("SELECT * FROM UNNEST(");
        for (i, column) in columns.into_iter().enumerate() {
            let cast = match column {
                Bind::Ints(_) => "::bigint[]",
                _ => "::text[]",
            };
            self.push(if i == 0 { "" } else { ", " })
                .bind(column)
                .push(cast);
        }
        self.push(")")
    }
    /// Appends `AND id > $n` when paginating, then the order and the limit
    /// (one more than asked, to learn whether another page exists).
    pub fn paginate(&mut self, id_column: &str, page: &crate::PageRequest) -> &mut Self {
        if let Some(after) = &page.after {
            self.push(&format!(" AND {id_column} > "))
                .bind(Bind::Text(after.clone()));
        }
        self.push(&format!(" ORDER BY {id_column} LIMIT "))
            .bind(Bind::Int(i64::from(page.limit) + 1))
    }
}

/// Trims a fetched `limit + 1` rows to a page and its continuation id.
pub fn to_page<T>(
    mut items: Vec<T>,
    limit: u32,
    id_of: impl Fn(&T) -> &str,
) -> relay_core::model::Page<T> {
    let has_more = items.len() > limit as usize;
    items.truncate(limit as usize);
    let next_after = if has_more {
        items.last().map(|i| id_of(i).to_string())
    } else {
        None
    };
    relay_core::model::Page {
        data: items,
        next_after,
    }
}

/// Maps a database error to `Conflict(what)` when it is a uniqueness violation.
pub fn unique_as_conflict(e: sqlx::Error, what: &'static str) -> crate::StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => crate::StoreError::Conflict(what),
        _ => crate::StoreError::Database(e),
    }
}

/// Appends the conditions of a message filter (column names of `messages`).
pub fn push_message_filter(q: &mut SqlBuilder, f: &crate::MessageFilter) {
    let text_filters = [
        ("endpoint_id", &f.endpoint_id),
        ("event_id", &f.event_id),
        ("event_type", &f.event_type),
        ("last_error_code", &f.error_code),
    ];
    for (col, value) in text_filters {
        if let Some(v) = value {
            q.push(&format!(" AND {col} = "))
                .bind(Bind::Text(v.clone()));
        }
    }
    if let Some(s) = f.state {
        q.push(" AND state = ").bind(Bind::Text(s.as_str().into()));
    }
    if let Some(states) = &f.states {
        q.push(" AND state IN ('-'");
        for s in states {
            q.push(", ").bind(Bind::Text(s.as_str().into()));
        }
        q.push(")");
    }
    if let Some(t) = f.since {
        q.push(" AND created_at >= ").bind(Bind::Int(t.millis()));
    }
    if let Some(t) = f.until {
        q.push(" AND created_at < ").bind(Bind::Int(t.millis()));
    }
    if let Some(t) = f.events_since {
        q.push(
            " AND EXISTS (SELECT 1 FROM events ev WHERE ev.tenant_id = messages.tenant_id \
             AND ev.environment = messages.environment AND ev.id = messages.event_id \
             AND ev.created_at >= ",
        )
        .bind(Bind::Int(t.millis()))
        .push(")");
    }
}

/// `v` as JSON text for a column.
pub fn json_text<T: serde::Serialize>(v: &T) -> String {
    // Serializing our own plain data types cannot fail.
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}

/// `Some(value)` when the lease held and there is a value.
pub fn applied_and<T>(applied: bool, value: &Option<T>) -> Option<&T> {
    if applied { value.as_ref() } else { None }
}

/// Message states from which a removed endpoint's messages are dead-lettered.
pub const LIVE_STATES_SQL: &str = "('scheduled', 'in_flight', 'held', 'blocked')";

/// The live states of a message that is not in flight: waiting for its next
/// attempt, held, or blocked behind its ordering key. The text of the
/// `messages_ttl` index's condition (migrations 0005 and 0021), which
/// SQLite's planner matches by its terms.
pub const WAITING_STATES_SQL: &str = "('scheduled', 'held', 'blocked')";

#[cfg(test)]
mod tests {
    use super::{Bind, SqlBuilder};

    #[test]
    fn rows_as_arrays_have_one_text_for_every_batch_size() {
        let rows = |n: usize| {
            (0..n)
                .map(|i| {
                    vec![
                        Bind::Text(format!("m{i}")),
                        Bind::OptText((i % 2 == 0).then(|| "x".to_string())),
                        Bind::Int(i as i64),
                        Bind::OptInt(None),
                    ]
                })
                .collect::<Vec<_>>()
        };
        let text = |n: usize| {
            let mut q = SqlBuilder::new("WITH v (a, b, c, d) AS (");
            q.rows(rows(n), 100, true).push(")");
            q
        };
        let q = text(3);
        assert_eq!(
            q.sql,
            "WITH v (a, b, c, d) AS (SELECT * FROM UNNEST($1::text[], $2::text[], \
             $3::bigint[], $4::bigint[]))"
        );
        for n in [1, 2, 7, 100, 150] {
            assert_eq!(text(n).sql, q.sql, "{n} rows");
        }
        // One array per column, the rows in order, NULLs kept.
        let [Bind::Texts(a), Bind::Texts(b), Bind::Ints(c), Bind::Ints(d)] = &q.binds[..] else {
            panic!("four arrays: {:?}", q.binds.len());
        };
        assert_eq!(
            a,
            &[Some("m0".into()), Some("m1".into()), Some("m2".into())]
        );
        assert_eq!(b, &[Some("x".into()), None, Some("x".into())]);
        assert_eq!(c, &[Some(0), Some(1), Some(2)]);
        assert_eq!(d, &[None, None, None]);
        // Without arrays (SQLite), the padded VALUES list.
        let mut q = SqlBuilder::new("WITH v (a, b, c, d) AS (");
        q.rows(rows(3), 100, false).push(")");
        assert!(
            q.sql
                .starts_with("WITH v (a, b, c, d) AS (VALUES ($1, $2, $3, $4), ")
        );
        assert_eq!(q.binds.len(), 16);
        // An empty batch has nothing to bind either way.
        let mut q = SqlBuilder::new("");
        q.rows(Vec::new(), 100, true);
        assert_eq!((q.sql.as_str(), q.binds.len()), ("VALUES ", 0));
    }

    /// A row whose value has another type than its column's first row is
    /// a caller's bug, stopped in debug builds (tests) instead of bound as
    /// NULL without a word.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a value of another type in an integer column")]
    fn a_row_of_another_type_stops_debug_builds() {
        let mut q = SqlBuilder::new("");
        q.rows(
            vec![vec![Bind::Int(1)], vec![Bind::Text("one".into())]],
            100,
            true,
        );
    }

    #[test]
    fn padded_lists_have_one_text_per_power_of_two() {
        let rows = |n: usize| {
            (0..n)
                .map(|i| vec![Bind::Text(format!("m{i}")), Bind::Int(i as i64)])
                .collect::<Vec<_>>()
        };
        // (rows, the most a statement takes, rows after padding)
        for (n, max, padded) in [
            (1, 100, 1),
            (2, 100, 2),
            (3, 100, 4),
            (5, 100, 8),
            (64, 100, 64),
            (65, 100, 100),
            (100, 100, 100),
            (129, 200, 200),
        ] {
            let mut q = SqlBuilder::new("VALUES ");
            q.values_padded(rows(n), max);
            assert_eq!(q.binds.len(), padded * 2, "{n} rows");
            assert_eq!(q.sql.matches('(').count(), padded, "{n} rows");
            // The padding is typed NULLs.
            assert!(matches!(
                q.binds.last(),
                Some(Bind::OptInt(None)) | Some(Bind::Int(_))
            ));
            if padded > n {
                assert!(matches!(q.binds[n * 2], Bind::OptText(None)));
                assert!(matches!(q.binds[n * 2 + 1], Bind::OptInt(None)));
            }
            let mut again = SqlBuilder::new("VALUES ");
            again.values_padded(rows(padded), max);
            assert_eq!(q.sql, again.sql, "one text for {n} and {padded} rows");
        }
        let mut q = SqlBuilder::new("VALUES ");
        q.values_padded(Vec::new(), 100);
        assert_eq!(q.sql, "VALUES ");
        // An IN list repeats its last value.
        let mut q = SqlBuilder::new("id IN (");
        q.bind_list_padded(["a", "b", "c"].map(|s| Bind::Text(s.into())));
        assert_eq!(q.sql, "id IN ($1, $2, $3, $4");
        assert!(matches!(&q.binds[3], Bind::Text(t) if t == "c"));
    }
}
