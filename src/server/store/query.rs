//! The statements the store builds at run time: [`QueryText`], a text with its `$n` parameters
//! ([`SqlValue`]s, bound in order by [`arguments`]) built one condition at a time, made conditional
//! in its own place ([`QueryText::only_if`]), and joined with others into one call to the database
//! ([`QueryText::together`] on PostgreSQL, [`QueryText::in_order`] on SQLite).

/// A value bound to a query whose shape depends on the filters given.
pub(super) enum SqlValue {
    Text(String),
    MaybeText(Option<String>),
    Int(i64),
    MaybeInt(Option<i64>),
    Small(i16),
    Bool(bool),
}

/// `values` as the arguments of a query on `DB`, in order.
pub(super) fn arguments<'q, DB>(values: Vec<SqlValue>) -> Result<DB::Arguments<'q>, sqlx::Error>
where
    DB: sqlx::Database,
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i16: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    bool: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    use sqlx::Arguments;
    let mut arguments = DB::Arguments::default();
    for value in values {
        match value {
            SqlValue::Text(text) => arguments.add(text),
            SqlValue::MaybeText(text) => arguments.add(text),
            SqlValue::Int(number) => arguments.add(number),
            SqlValue::MaybeInt(number) => arguments.add(number),
            SqlValue::Small(number) => arguments.add(number),
            SqlValue::Bool(flag) => arguments.add(flag),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(arguments)
}

/// A query's text with its `$n` parameters, built one condition at a time.
pub(super) struct QueryText {
    pub sql: String,
    pub values: Vec<SqlValue>,
    /// What a later statement of [`QueryText::together`] calls this one's returned rows.
    pub name: Option<&'static str>,
    /// Where [`QueryText::only_if`] can make this write conditional.
    pub opening: Opening,
}

/// Where a write can take a condition: [`QueryText::only_if`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Opening {
    /// Nowhere: a read, or a write built without one.
    None,
    /// An insert whose `values …` rows lie in this span of its text.
    Rows(std::ops::Range<usize>),
    /// A write whose `where` clause ends at this byte of its text.
    WhereEndsAt(usize),
}

impl QueryText {
    pub(super) fn new(sql: &str) -> Self {
        QueryText { sql: sql.to_owned(), values: Vec::new(), name: None, opening: Opening::None }
    }

    /// Marks the text from `start` to here as the insert's `values …` rows.
    pub(super) fn rows_from(mut self, start: usize) -> Self {
        self.opening = Opening::Rows(start..self.sql.len());
        self
    }

    /// Marks the text so far as ending in its `where` clause.
    pub(super) fn where_ends_here(mut self) -> Self {
        self.opening = Opening::WhereEndsAt(self.sql.len());
        self
    }

    /// This write made to do nothing unless `condition` (with no parameters of its own) holds:
    /// an insert's rows are selected under it, a `where` clause gets it added. Panics on a
    /// statement built without an [`Opening`], which only a change to a builder here can make.
    pub(super) fn only_if(self, condition: &str) -> Self {
        let sql = match &self.opening {
            Opening::Rows(rows) => format!(
                "{}select * from ({}) as v where {condition}{}",
                &self.sql[..rows.start],
                &self.sql[rows.clone()],
                &self.sql[rows.end..]
            ),
            Opening::WhereEndsAt(end) => {
                format!("{} and {condition}{}", &self.sql[..*end], &self.sql[*end..])
            }
            Opening::None => panic!("a statement with no place for a condition: {}", self.sql),
        };
        QueryText { sql, opening: Opening::None, ..self }
    }

    /// Adds the next parameter and returns its placeholder.
    pub(super) fn param(&mut self, value: SqlValue) -> String {
        self.values.push(value);
        format!("${}", self.values.len())
    }

    pub(super) fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }

    pub(super) fn named(self, name: &'static str) -> Self {
        QueryText { name: Some(name), ..self }
    }
}

impl QueryText {
    /// `statements` as one statement: on PostgreSQL, every one but the last as a data-modifying
    /// `with` part of the last (under its [`QueryText::name`], for the later ones to read what it
    /// returns), their parameters numbered on; `None` when there are none.
    pub(super) fn together(statements: Vec<QueryText>) -> Option<QueryText> {
        let count = statements.len();
        let mut joined = QueryText::new("");
        for (i, statement) in statements.into_iter().enumerate() {
            let offset = joined.values.len();
            let sql = shift_params(&statement.sql, offset);
            let name = statement.name.map_or_else(|| format!("part{i}"), str::to_owned);
            match (i, i + 1 == count) {
                (0, true) => joined.push(&sql),
                (0, false) => joined.push(&format!("with {name} as ({sql})")),
                (_, false) => joined.push(&format!(", {name} as ({sql})")),
                (_, true) => joined.push(&format!(" {sql}")),
            }
            joined.values.extend(statement.values);
        }
        (count > 0).then_some(joined)
    }
}

impl QueryText {
    /// `statements` as one text that runs them one after the other (as SQLite runs a text of
    /// several statements: one call into its connection's thread instead of one for each), their
    /// parameters numbered on; `None` when there are none.
    pub(super) fn in_order(statements: Vec<QueryText>) -> Option<QueryText> {
        let count = statements.len();
        let mut joined = QueryText::new("");
        for statement in statements {
            let sql = shift_params(&statement.sql, joined.values.len());
            if !joined.sql.is_empty() {
                joined.push("; ");
            }
            joined.push(&sql);
            joined.values.extend(statement.values);
        }
        (count > 0).then_some(joined)
    }
}

/// `sql` with every `$n` placeholder numbered `offset` further on.
pub(super) fn shift_params(sql: &str, offset: usize) -> String {
    let mut shifted = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(dollar) = rest.find('$') {
        shifted.push_str(&rest[..=dollar]);
        rest = &rest[dollar + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(number) => shifted.push_str(&(number + offset).to_string()),
            Err(_) => shifted.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    shifted.push_str(rest);
    shifted
}

/// `insert into <into> values (…)` of `values`, each a parameter, then `rest`.
pub(super) fn insert_values(into: &str, values: Vec<SqlValue>, rest: &str) -> QueryText {
    let mut text = QueryText::new(&format!("insert into {into} values ("));
    let rows = text.sql.len() - "values (".len();
    let placeholders: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
    text.push(&placeholders.join(", "));
    text.push(")");
    let mut text = text.rows_from(rows);
    text.push(rest);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqlitePoolOptions;

    #[test]
    fn statements_together_number_their_parameters_on() {
        let statement = |sql: &str, values: &[i64]| QueryText {
            sql: sql.to_owned(),
            values: values.iter().map(|v| SqlValue::Int(*v)).collect(),
            name: None,
            opening: Opening::None,
        };
        let joined = QueryText::together(vec![
            statement("insert into a values ($1, $2, $1)", &[1, 2]),
            statement("insert into b values ($1)", &[3]),
            statement("update c set x = $2 where y = $1", &[4, 5]),
        ])
        .unwrap();
        assert_eq!(
            joined.sql,
            "with part0 as (insert into a values ($1, $2, $1)), part1 as (insert into b values ($3)) \
             update c set x = $5 where y = $4"
        );
        let values: Vec<i64> =
            joined.values.iter().map(|v| if let SqlValue::Int(v) = v { *v } else { 0 }).collect();
        assert_eq!(values, [1, 2, 3, 4, 5]);
        assert_eq!(
            QueryText::together(vec![statement("delete from d where e = $1", &[6])]).unwrap().sql,
            "delete from d where e = $1"
        );
        assert!(QueryText::together(Vec::new()).is_none());
        let read_back = QueryText::together(vec![
            statement("update f set n = n + $1 returning n", &[1]).named("after"),
            statement("insert into g select n from after where n > $1", &[2]),
        ])
        .unwrap();
        assert_eq!(
            read_back.sql,
            "with after as (update f set n = n + $1 returning n) insert into g select n from after where n > $2"
        );
    }

    #[tokio::test]
    async fn statements_in_order_run_one_after_the_other_in_one_call() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::query("create table t (n integer)").execute(&pool).await.unwrap();
        let statement = |sql: &str, values: &[i64]| QueryText {
            sql: sql.to_owned(),
            values: values.iter().map(|v| SqlValue::Int(*v)).collect(),
            name: None,
            opening: Opening::None,
        };
        let joined = QueryText::in_order(vec![
            statement("insert into t values ($1), ($2)", &[1, 2]),
            statement("update t set n = n * $1 where n = $2", &[10, 2]),
            statement("insert into t select max(n) + $1 from t", &[1]),
        ])
        .unwrap();
        assert_eq!(
            joined.sql,
            "insert into t values ($1), ($2); update t set n = n * $3 where n = $4; insert into t select max(n) + $5 from t"
        );
        sqlx::query_with(&joined.sql, arguments::<sqlx::Sqlite>(joined.values).unwrap())
            .execute(&pool)
            .await
            .unwrap();
        let rows: Vec<i64> = sqlx::query_scalar("select n from t order by n").fetch_all(&pool).await.unwrap();
        assert_eq!(rows, [1, 20, 21], "each statement saw the one before it");
        assert!(QueryText::in_order(Vec::new()).is_none());
    }

    #[test]
    #[should_panic(expected = "no place for a condition")]
    fn a_statement_without_a_place_for_a_condition_is_refused() {
        QueryText::new("select 1").only_if("c");
    }
}
