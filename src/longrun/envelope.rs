//! The envelope every file of this program shares: the one answer to "is this our file, and
//! which" ([`look`]), its checksum, and parsing it with every list capped.
//!
//! A checkpoint or result file is JSON whose `format` field names its kind (`nqueens-checkpoint`,
//! `nqueens-shard`) and whose `checksum` field is the SHA-256 of the JSON of its content with
//! that field blank. The checksum is over the content, not the layout: a file an editor
//! pretty-printed or whose keys it reordered is read as it was written, and so is one with a
//! UTF-8 byte-order mark.

use super::error::{Damage, StoreError};
use crate::longrun::durable::{self, Bound};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::Path;

/// The kinds of file this program writes and reads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A checkpoint (`nqueens-checkpoint`).
    Checkpoint,
    /// A shard's result file (`nqueens-shard`).
    ShardResult,
}

impl FileKind {
    /// The value of the file's `format` field.
    pub const fn format(self) -> &'static str {
        match self {
            FileKind::Checkpoint => "nqueens-checkpoint",
            FileKind::ShardResult => "nqueens-shard",
        }
    }

    fn of_format(format: &str) -> Option<FileKind> {
        [FileKind::Checkpoint, FileKind::ShardResult]
            .into_iter()
            .find(|k| k.format() == format)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Checkpoint => "checkpoint",
            FileKind::ShardResult => "shard result file",
        })
    }
}

/// What a file's bytes are, by their look alone ([`look`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// Nothing, or only white space.
    Empty,
    /// A file of this program, of the kind its `format` field names (`None`: damaged, so that
    /// the kind cannot be told).
    Ours(Option<FileKind>),
    /// Anything else: some other program's file, never read as one of ours nor replaced.
    NotOurs,
}

/// The start of the checksum every file of this program holds.
const CHECKSUM_VALUE: &[u8] = br#""sha256:"#;
/// The start of the `format` value of every file of this program.
const FORMAT_VALUE: &[u8] = br#""nqueens-"#;

/// The UTF-8 byte-order mark, which some editors put first in a file they save.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// `bytes` without a leading UTF-8 byte-order mark.
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Whether this program wrote `bytes`, and which kind of file they are: the one answer every
/// reader and the rule for replacing a file ask. A file that parses as JSON with a `format` of
/// ours is of that kind (pretty-printed, reordered or not); one that does not parse, or names
/// no format of ours, is a damaged one of ours when it still holds a format value or a
/// checksum value of ours (no single flipped bit or cut takes both), and not ours otherwise.
pub fn look(bytes: &[u8]) -> Look {
    #[derive(Deserialize)]
    struct Head {
        format: Option<serde_json::Value>,
    }
    let bytes = without_bom(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Look::Empty;
    }
    let format = serde_json::from_slice::<Head>(bytes)
        .ok()
        .and_then(|h| h.format?.as_str().map(str::to_string));
    if let Some(kind) = format.as_deref().and_then(FileKind::of_format) {
        return Look::Ours(Some(kind));
    }
    let holds = |what: &[u8]| bytes.windows(what.len()).any(|w| w == what);
    if holds(FORMAT_VALUE) || holds(CHECKSUM_VALUE) {
        Look::Ours(None)
    } else {
        Look::NotOurs
    }
}

/// The SHA-256 of the JSON form of `value` (as `sha256:` and hex digits), without the JSON
/// itself in memory.
pub(crate) fn checksum_of<T: Serialize>(value: &T) -> String {
    struct HashWriter(Sha256);
    impl Write for HashWriter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut w = HashWriter(Sha256::new());
    serde_json::to_writer(&mut w, value).expect("serializable");
    let digest = w.0.finalize();
    let mut s = String::with_capacity(7 + 2 * digest.len());
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// A file's content with its checksum filled in, as bytes: the JSON of `value` (whose checksum
/// field `checksum_field` gives, blank when this is called) and a newline.
pub(crate) fn seal<T: Serialize>(
    value: &mut T,
    checksum_field: fn(&mut T) -> &mut String,
) -> Vec<u8> {
    *checksum_field(value) = String::new();
    let sum = checksum_of(value);
    *checksum_field(value) = sum;
    let mut bytes = serde_json::to_vec(value).expect("serializable");
    bytes.push(b'\n');
    bytes
}

/// The most units a job can have: the edge method at N = 32 and split depth 4 has 1,942,787,
/// the most of any method, board and depth (checked by a test), rounded up to a power of two.
/// A file that claims more is not one of this program's.
pub const MAX_UNITS: u32 = 1 << 21;

/// The most bytes a checkpoint or result file is read up to: 256 MiB, above the largest real
/// one (a job of [`MAX_UNITS`] units at 90 bytes a unit at most: a unit's index and two counts
/// of up to 39 digits). A larger file is refused before it is read.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The bound of every read of a checkpoint or result file: [`MAX_FILE_BYTES`], and the memory
/// its lists of units become (at most [`MAX_UNITS`] entries of under 120 bytes each, however
/// few bytes each takes in the file).
pub(crate) const FILE_BOUND: Bound = Bound {
    bytes: MAX_FILE_BYTES,
    what: "checkpoint or result file",
    parse_memory: |bytes| (bytes / 2).min(u64::from(MAX_UNITS)) * 120,
};

/// Reads the checkpoint or result file at `path` whole, within [`FILE_BOUND`].
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    Ok(durable::read_bounded(path, FILE_BOUND)?)
}

/// Parses `bytes` (read from `path`) as a file of `kind`, of type `T`, with its checksum
/// checked: refused as empty, not ours, the other kind of ours, damaged (not parsing, or with
/// a checksum that does not match its content).
pub(crate) fn open<T>(
    path: &Path,
    bytes: &[u8],
    kind: FileKind,
    checksum_field: fn(&mut T) -> &mut String,
) -> Result<T, StoreError>
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let path_buf = || path.to_path_buf();
    match look(bytes) {
        Look::Empty => {
            return Err(StoreError::Empty {
                path: path_buf(),
                kind,
            })
        }
        Look::NotOurs => {
            return Err(StoreError::NotOurs {
                path: path_buf(),
                kind,
            })
        }
        Look::Ours(Some(found)) if found != kind => {
            return Err(StoreError::WrongKind {
                path: path_buf(),
                found,
                expected: kind,
            })
        }
        Look::Ours(_) => {}
    }
    let corrupt = |reason| StoreError::Corrupt {
        path: path_buf(),
        reason,
    };
    let mut value: T = serde_json::from_slice(without_bom(bytes)).map_err(|e| {
        corrupt(Damage::Syntax {
            kind,
            reason: short(&e.to_string()),
        })
    })?;
    let stored = std::mem::take(checksum_field(&mut value));
    if checksum_of(&value) != stored {
        return Err(corrupt(Damage::Checksum));
    }
    *checksum_field(&mut value) = stored;
    Ok(value)
}

/// `text` cut to a length that fits one line of a message (a parser's error can quote a
/// long stretch of a file, and a file's host name can be anything).
pub(crate) fn short(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `d` in whole milliseconds, as files record it: `u64::MAX` for a time too long for that
/// (never wrapped round to a small one).
pub(crate) fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Deserializes a list of at most [`MAX_UNITS`] items: a longer one is refused as it is read,
/// before it takes more memory than any real file's (`#[serde(deserialize_with)]`).
pub(crate) fn capped<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Visit<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of at most {MAX_UNITS} items")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            // The memory was asked for before the file was read (`FILE_BOUND`).
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(item) = seq.next_element()? {
                if items.len() == MAX_UNITS as usize {
                    return Err(serde::de::Error::custom(format!(
                        "a list of more than {MAX_UNITS} items, more than any job has units"
                    )));
                }
                items.push(item);
            }
            Ok(items)
        }
    }
    d.deserialize_seq(Visit(std::marker::PhantomData))
}

/// [`capped`] for an optional list.
pub(crate) fn capped_opt<'de, D, T>(d: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Wrap<T>(Vec<T>);
    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Wrap<T> {
        fn deserialize<E: serde::Deserializer<'de>>(d: E) -> Result<Self, E::Error> {
            capped(d).map(Wrap)
        }
    }
    Option::<Wrap<T>>::deserialize(d).map(|w| w.map(|w| w.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Tiny {
        format: String,
        value: u32,
        checksum: String,
    }

    fn tiny(kind: FileKind) -> Vec<u8> {
        let mut t = Tiny {
            format: kind.format().into(),
            value: 7,
            checksum: String::new(),
        };
        seal(&mut t, |t| &mut t.checksum)
    }

    #[test]
    fn the_look_of_a_file_tells_ours_and_which() {
        let shard = tiny(FileKind::ShardResult);
        assert_eq!(look(&shard), Look::Ours(Some(FileKind::ShardResult)));
        assert_eq!(
            look(&tiny(FileKind::Checkpoint)),
            Look::Ours(Some(FileKind::Checkpoint))
        );
        // Pretty-printed, keys reordered, a byte-order mark: the same file.
        let text = String::from_utf8(shard.clone()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_vec_pretty(&v).unwrap();
        assert_eq!(look(&pretty), Look::Ours(Some(FileKind::ShardResult)));
        let reordered = format!(
            r#"{{"value":7,"checksum":{},"format":"nqueens-shard"}}"#,
            v["checksum"]
        );
        assert_eq!(
            look(reordered.as_bytes()),
            Look::Ours(Some(FileKind::ShardResult))
        );
        let bom = [BOM, &shard].concat();
        assert_eq!(look(&bom), Look::Ours(Some(FileKind::ShardResult)));
        // The start of ours followed by anything is a damaged one of ours, never a good one.
        assert_eq!(
            look(br#"{"format":"nqueens-shard" garbage"#),
            Look::Ours(None)
        );
        assert_eq!(look(br#"{"x":1,"checksum":"sha256:00"}"#), Look::Ours(None));
        // Other files.
        for other in [&b"hello"[..], br#"{"format":"other"}"#, b"[1,2]", b"{}"] {
            assert_eq!(look(other), Look::NotOurs, "{other:?}");
        }
        for empty in [&b""[..], b" \n\t", BOM] {
            assert_eq!(look(empty), Look::Empty);
        }
    }

    #[test]
    fn open_checks_kind_syntax_and_checksum() {
        let p = Path::new("f");
        let get = |bytes: &[u8], kind| open::<Tiny>(p, bytes, kind, |t| &mut t.checksum);
        let shard = tiny(FileKind::ShardResult);
        assert_eq!(get(&shard, FileKind::ShardResult).unwrap().value, 7);
        assert_eq!(
            get(&[BOM, &shard].concat(), FileKind::ShardResult)
                .unwrap()
                .value,
            7
        );
        assert!(matches!(
            get(&shard, FileKind::Checkpoint),
            Err(StoreError::WrongKind {
                found: FileKind::ShardResult,
                expected: FileKind::Checkpoint,
                ..
            })
        ));
        assert!(matches!(
            get(b"  ", FileKind::Checkpoint),
            Err(StoreError::Empty { .. })
        ));
        assert!(matches!(
            get(b"hello", FileKind::Checkpoint),
            Err(StoreError::NotOurs { .. })
        ));
        let changed = String::from_utf8(shard.clone())
            .unwrap()
            .replace(":7,", ":8,");
        assert!(matches!(
            get(changed.as_bytes(), FileKind::ShardResult),
            Err(StoreError::Corrupt {
                reason: Damage::Checksum,
                ..
            })
        ));
        let cut = &shard[..shard.len() / 2];
        assert!(matches!(
            get(cut, FileKind::ShardResult),
            Err(StoreError::Corrupt {
                reason: Damage::Syntax { .. },
                ..
            })
        ));
        assert_eq!(
            checksum_of(&"abc"),
            "sha256:6cc43f858fbb763301637b5af970e2a46b46f461f27e5a0f41e009c59b827b25"
        );
    }

    /// The memory a read asks for: the file, and up to 120 bytes for every two of its bytes,
    /// at most for every unit a job can have.
    #[test]
    fn the_memory_of_a_read_is_bounded_by_the_units_of_any_job() {
        assert_eq!((FILE_BOUND.parse_memory)(1000), 60_000);
        assert_eq!((FILE_BOUND.parse_memory)(1001), 60_000);
        let most = u64::from(MAX_UNITS) * 120;
        assert_eq!((FILE_BOUND.parse_memory)(MAX_FILE_BYTES), most);
        assert_eq!(
            (FILE_BOUND.parse_memory)(2 * u64::from(MAX_UNITS) + 10),
            most
        );
    }

    #[test]
    fn lists_are_capped_as_they_are_read() {
        #[derive(Deserialize)]
        struct L {
            #[serde(deserialize_with = "capped")]
            v: Vec<u8>,
        }
        let ok = format!("{{\"v\":[{}]}}", vec!["1"; 100].join(","));
        assert_eq!(serde_json::from_str::<L>(&ok).unwrap().v.len(), 100);
        let long = format!(
            "{{\"v\":[{}]}}",
            vec!["1"; MAX_UNITS as usize + 1].join(",")
        );
        let err = serde_json::from_str::<L>(&long).err().unwrap();
        assert!(
            err.to_string().contains("more than any job has units"),
            "{err}"
        );
        // Something else where the list goes is refused saying what was expected.
        let err = serde_json::from_str::<L>("{\"v\":7}").err().unwrap();
        assert!(err.to_string().contains("a list of at most"), "{err}");
    }
}
