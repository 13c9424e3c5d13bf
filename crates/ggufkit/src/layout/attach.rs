//! Findings attached to the fields they point into.
#![forbid(unsafe_code)]

use super::{Field, FieldPath, FieldValue, Finding};

/// Attaches each finding to the first field of `fields` that it points into (a zero-length field
/// at its offset counts), else to the last field, else to a field for the whole file (`len`
/// bytes) when there is none. Each field's findings keep the order of `findings`.
///
/// The findings are sorted by offset once, and each field takes the ones in its range by binary
/// search, skipping those already taken: O((fields + findings) · log findings), where asking
/// every field for every finding passed over every field once per finding.
pub(super) fn attach_findings(fields: &mut Vec<Field<'_>>, len: u64, findings: Vec<Finding>) {
    if findings.is_empty() {
        return;
    }
    let mut by_offset: Vec<usize> = (0..findings.len()).collect();
    by_offset.sort_by_key(|&i| findings[i].diagnostic.offset);
    let offsets: Vec<u64> = by_offset
        .iter()
        .map(|&i| findings[i].diagnostic.offset)
        .collect();
    // next_free[j]: the first position at or after j in `by_offset` whose finding is not taken
    let mut next_free: Vec<usize> = (0..=offsets.len()).collect();
    let mut target: Vec<Option<usize>> = vec![None; findings.len()];
    for (k, f) in fields.iter().enumerate() {
        let first = offsets.partition_point(|&o| o < f.offset);
        let end = if f.length == 0 {
            offsets.partition_point(|&o| o <= f.offset)
        } else {
            let field_end = f.offset.saturating_add(f.length);
            offsets.partition_point(|&o| o < field_end)
        };
        let mut j = free_from(&mut next_free, first);
        while j < end {
            target[by_offset[j]] = Some(k);
            next_free[j] = j + 1;
            j = free_from(&mut next_free, j + 1);
        }
    }
    if fields.is_empty() {
        fields.push(Field {
            path: FieldPath::File,
            offset: 0,
            length: len,
            value: FieldValue::None,
            findings: Vec::new(),
        });
    }
    let last = fields.len() - 1;
    for (finding, k) in findings.into_iter().zip(target) {
        fields[k.unwrap_or(last)].findings.push(finding);
    }
}

/// The first free position at or after `j`, shortening the chains it walked.
fn free_from(next_free: &mut [usize], j: usize) -> usize {
    let mut root = j;
    while next_free[root] != root {
        root = next_free[root];
    }
    let mut at = j;
    while next_free[at] != root {
        let next = next_free[at];
        next_free[at] = root;
        at = next;
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Severity;
    use crate::{Diagnostic, Rule};
    use proptest::prelude::*;

    /// The rule as first written: every finding asks every field in turn.
    fn attach_one_by_one(fields: &mut Vec<Field<'_>>, len: u64, findings: Vec<Finding>) {
        for finding in findings {
            let d = finding.diagnostic.offset;
            let k = fields
                .iter()
                .position(|f| {
                    (f.offset <= d && d < f.offset.saturating_add(f.length))
                        || (f.length == 0 && f.offset == d)
                })
                .or(fields.len().checked_sub(1));
            match k {
                Some(k) => fields[k].findings.push(finding),
                None => fields.push(Field {
                    path: FieldPath::File,
                    offset: 0,
                    length: len,
                    value: FieldValue::None,
                    findings: vec![finding],
                }),
            }
        }
    }

    fn field(offset: u64, length: u64) -> Field<'static> {
        Field {
            path: FieldPath::Padding,
            offset,
            length,
            value: FieldValue::None,
            findings: Vec::new(),
        }
    }

    fn finding(offset: u64, n: usize) -> Finding {
        Finding {
            severity: if n % 2 == 0 {
                Severity::Error
            } else {
                Severity::Warning
            },
            diagnostic: Diagnostic {
                rule: Rule::Truncated,
                offset,
                message: n.to_string(),
            },
        }
    }

    #[test]
    fn no_fields_and_no_findings_stay_empty() {
        let mut fields = Vec::new();
        attach_findings(&mut fields, 50, Vec::new());
        assert!(fields.is_empty());
        attach_findings(&mut fields, 50, vec![finding(7, 0)]);
        assert_eq!(fields.len(), 1);
        assert_eq!((fields[0].path, fields[0].length), (FieldPath::File, 50));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Overlapping, empty and out-of-order fields, findings inside, between and past them,
        /// several at one offset: the same attachment as asking every field.
        #[test]
        fn attaches_as_asking_every_field(
            spans in prop::collection::vec((0u64..40, 0u64..6), 0..12),
            at in prop::collection::vec(0u64..50, 0..20),
        ) {
            let fields: Vec<Field<'static>> = spans.iter().map(|&(o, l)| field(o, l)).collect();
            let findings: Vec<Finding> =
                at.iter().enumerate().map(|(n, &o)| finding(o, n)).collect();
            let (mut fast, mut slow) = (fields.clone(), fields);
            attach_findings(&mut fast, 50, findings.clone());
            attach_one_by_one(&mut slow, 50, findings);
            prop_assert_eq!(fast, slow);
        }
    }
}
