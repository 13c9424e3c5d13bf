//! Shell-style wildcards for tensor names: `*` (any run of characters, dots included), `?` (one
//! character), `[abc]` / `[a-z]` / `[!abc]` (one character of a set); everything else literal.
#![forbid(unsafe_code)]

/// True when `name` matches `pattern` as a whole.
pub fn matches_glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point for the last `*`: linear-ish, no recursion.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&p, pi, n[ni]) {
                        if ok {
                            pi = next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        // an unclosed `[` is literal
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class starting at `p[start] == '['`: (matched, index after `]`), or
/// `None` when the class is not closed.
fn class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((hit != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::matches_glob as matches;

    #[test]
    fn wildcards() {
        assert!(matches("blk.*.attn_q.weight", "blk.12.attn_q.weight"));
        assert!(!matches("blk.*.attn_q.weight", "blk.12.attn_k.weight"));
        assert!(matches("*", ""));
        assert!(matches("blk.?.*", "blk.3.ffn_up.weight"));
        assert!(!matches("blk.?.*", "blk.10.ffn_up.weight"));
        assert!(matches("blk.[0-2].*", "blk.1.x"));
        assert!(!matches("blk.[!0-2].*", "blk.1.x"));
        assert!(matches("*weight", "token_embd.weight"));
        assert!(matches("a[b", "a[b"));
        assert!(matches("*a*a*a*b", "aaaaaaaaaaaaaaaaaaab"));
        assert!(!matches("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa"));
        assert!(matches("token_embd.weight", "token_embd.weight"));
    }
}
