//! The tables against llama.cpp's `unicode-data.cpp` (parsed here, independently of the
//! generator, and combined as `unicode_cpt_flags_array()` combines it), over every codepoint.
#![forbid(unsafe_code)]
use super::*;
use std::path::Path;

/// The `{...}` tuples of table `name` in unicode-data.cpp.
fn tuples(src: &str, name: &str) -> Vec<Vec<u32>> {
    let at = src.find(&format!("{name} = {{")).expect("table present");
    let body = &src[at..];
    let body = &body[body.find('{').unwrap() + 1..body.find("\n};").unwrap()];
    let mut out = Vec::new();
    for line in body.lines() {
        let line = line.split("//").next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let line = line
            .trim_end_matches(',')
            .trim_start_matches('{')
            .trim_end_matches('}');
        out.push(
            line.split(',')
                .map(|v| u32::from_str_radix(v.trim().trim_start_matches("0x"), 16).unwrap())
                .collect(),
        );
    }
    out
}

struct Reference {
    flags: Vec<u16>,
    lower: Vec<(u32, u32)>,
    nfd: Vec<(u32, u32, u32)>,
}

fn reference(dir: &Path) -> Reference {
    let src = std::fs::read_to_string(dir.join("src/unicode-data.cpp")).unwrap();
    let ranges = tuples(&src, "unicode_ranges_flags");
    let mut flags = vec![CodepointFlags::UNDEFINED; MAX_CODEPOINTS as usize];
    for w in ranges.windows(2) {
        for cp in w[0][0]..w[1][0] {
            flags[cp as usize] = w[0][1] as u16;
        }
    }
    for cp in tuples(&src, "unicode_set_whitespace") {
        flags[cp[0] as usize] |= CodepointFlags::WHITESPACE;
    }
    let lower: Vec<(u32, u32)> = tuples(&src, "unicode_map_lowercase")
        .into_iter()
        .map(|t| (t[0], t[1]))
        .collect();
    for &(_, to) in &lower {
        flags[to as usize] |= CodepointFlags::LOWERCASE;
    }
    for t in tuples(&src, "unicode_map_uppercase") {
        flags[t[1] as usize] |= CodepointFlags::UPPERCASE;
    }
    let nfd: Vec<(u32, u32, u32)> = tuples(&src, "unicode_ranges_nfd")
        .into_iter()
        .map(|t| (t[0], t[1], t[2]))
        .collect();
    for &(_, _, to) in &nfd {
        flags[to as usize] |= CodepointFlags::NFD;
    }
    Reference { flags, lower, nfd }
}

#[test]
fn every_codepoint_matches_llama_cpp_unicode_data() {
    let Some(dir) = ggufkit_testkit::reference::llama_cpp_src() else {
        return;
    };
    let r = reference(&dir);
    let mut lower = std::collections::HashMap::new();
    for &(from, to) in &r.lower {
        lower.insert(from, to);
    }
    for cp in 0..MAX_CODEPOINTS {
        assert_eq!(
            flags(cp).bits(),
            r.flags[cp as usize],
            "flags of U+{cp:04X}"
        );
        assert_eq!(flags::flags_by_search(cp), flags(cp), "runs of U+{cp:04X}");
        assert_eq!(
            to_lower(cp),
            *lower.get(&cp).unwrap_or(&cp),
            "lower of U+{cp:04X}"
        );
        // llama.cpp: upper_bound over the range starts, minus one, then the range test
        let i = r.nfd.partition_point(|&(first, _, _)| first <= cp);
        let want = match i.checked_sub(1).map(|i| r.nfd[i]) {
            Some((first, last, to)) if first <= cp && cp <= last => to,
            _ => cp,
        };
        assert_eq!(nfd(cp), want, "nfd of U+{cp:04X}");
    }
    println!(
        "{} codepoints compared (flags, lowercase, nfd)",
        MAX_CODEPOINTS
    );
}

#[test]
fn flags_of_known_codepoints() {
    let f = flags('a' as u32);
    assert!(f.is_letter() && f.is_lowercase() && !f.is_uppercase());
    assert!(flags('Z' as u32).is_uppercase());
    assert!(flags('7' as u32).is_number());
    assert!(flags(' ' as u32).is_whitespace() && flags(' ' as u32).is_separator());
    assert!(flags(0x3000).is_whitespace());
    assert!(flags(0x0301).is_accent_mark());
    assert!(flags('!' as u32).is_punctuation());
    assert!(flags('$' as u32).is_symbol());
    assert!(flags(0x0007).is_control());
    assert!(flags(0x4E00).is_letter());
    assert_eq!(flags(0x11_0000).bits(), CodepointFlags::UNDEFINED);
    assert_eq!(flags(u32::MAX).bits(), CodepointFlags::UNDEFINED);
    assert_eq!(to_lower('A' as u32), 'a' as u32);
    assert_eq!(to_lower('a' as u32), 'a' as u32);
    assert_eq!(to_lower(0x0130), 0x0069); // İ -> i, one codepoint as llama.cpp's map has it
    assert_eq!(nfd(0x00E9), 'e' as u32);
    assert_eq!(nfd('e' as u32), 'e' as u32);
}

#[test]
fn byte_map_is_gpt2s() {
    // printable bytes stand for themselves, the rest are shifted to U+0100.. in byte order
    assert_eq!(byte_to_char(b'a'), 'a');
    assert_eq!(byte_to_char(b' '), '\u{120}');
    assert_eq!(byte_to_char(b'\n'), '\u{10A}');
    assert_eq!(byte_to_char(0), '\u{100}');
    assert_eq!(byte_to_char(0xAD), '\u{143}');
    let mut seen = std::collections::HashSet::new();
    for b in 0..=255u8 {
        let c = byte_to_char(b);
        assert!(seen.insert(c), "byte {b} maps to a taken char");
        assert_eq!(char_to_byte(c), Some(b));
    }
    for cp in 0..0x400u32 {
        let c = char::from_u32(cp).unwrap();
        assert_eq!(char_to_byte(c).is_some(), seen.contains(&c), "U+{cp:04X}");
    }
    assert_eq!(char_to_byte('\u{144}'), None);
    assert_eq!(char_to_byte('€'), None);
}

#[test]
fn lenient_utf8_is_llama_cpps() {
    assert_eq!(
        cpts_from_utf8("aé€😀".as_bytes()),
        vec![0x61, 0xE9, 0x20AC, 0x1F600]
    );
    // a stray continuation byte and a truncated sequence: one U+FFFD per byte skipped
    assert_eq!(cpts_from_utf8(b"a\x80b"), vec![0x61, REPLACEMENT, 0x62]);
    assert_eq!(cpts_from_utf8(b"\xE2\x82"), vec![REPLACEMENT, REPLACEMENT]);
    // laxer than the standard: overlong and surrogate forms decode
    assert_eq!(cpts_from_utf8(b"\xC0\x80"), vec![0]);
    assert_eq!(cpts_from_utf8(b"\xED\xA0\x80"), vec![0xD800]);
    assert_eq!(cpts_from_utf8(b"\xF8\x88"), vec![REPLACEMENT, REPLACEMENT]);
    // valid UTF-8 decodes as Rust decodes it
    let s = "mixed ąčęėįšųūž 中文 😀\u{10FFFF}";
    let want: Vec<u32> = s.chars().map(|c| c as u32).collect();
    assert_eq!(cpts_from_utf8(s.as_bytes()), want);
}
