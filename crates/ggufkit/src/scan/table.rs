//! How a row of a scan table describes itself to a writer: its columns (name, kind, nullable)
//! and the cell of each. The JSON Lines and Parquet writers are written once over this, so a
//! column is declared in one place and every format spells it the same.
#![forbid(unsafe_code)]

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Str,
    /// An unsigned integer.
    U64,
    /// A signed integer.
    I64,
    /// A float64.
    F64,
    /// `true` or `false`.
    Bool,
    /// A list of unsigned integers (a tensor's shape).
    ListU64,
}

/// One column of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    /// Whether a cell may be empty (JSON `null`, Parquet null).
    pub nullable: bool,
}

impl Column {
    /// A column that always has a value.
    pub const fn req(name: &'static str, kind: Kind) -> Column {
        Column {
            name,
            kind,
            nullable: false,
        }
    }

    /// A column whose cells may be empty.
    pub const fn opt(name: &'static str, kind: Kind) -> Column {
        Column {
            name,
            kind,
            nullable: true,
        }
    }
}

/// One cell, borrowed from its row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Str(&'a str),
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    ListU64(&'a [u64]),
}

impl<'a> From<Option<&'a str>> for Cell<'a> {
    fn from(v: Option<&'a str>) -> Self {
        v.map_or(Cell::Null, Cell::Str)
    }
}

impl From<Option<u64>> for Cell<'_> {
    fn from(v: Option<u64>) -> Self {
        v.map_or(Cell::Null, Cell::U64)
    }
}

impl From<Option<i64>> for Cell<'_> {
    fn from(v: Option<i64>) -> Self {
        v.map_or(Cell::Null, Cell::I64)
    }
}

impl From<Option<f64>> for Cell<'_> {
    fn from(v: Option<f64>) -> Self {
        v.map_or(Cell::Null, Cell::F64)
    }
}

impl From<Option<bool>> for Cell<'_> {
    fn from(v: Option<bool>) -> Self {
        v.map_or(Cell::Null, Cell::Bool)
    }
}

/// A row of one of the scan's tables.
pub trait Row {
    /// The table's name: the folder its parts are written to.
    const TABLE: &'static str;
    /// The columns, in order.
    const COLUMNS: &'static [Column];
    /// The cell of column `i` (as in [`Row::COLUMNS`]).
    fn cell(&self, i: usize) -> Cell<'_>;
}
