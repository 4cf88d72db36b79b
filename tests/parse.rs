//! Parsing and formatting of decimal and `0x`-hex numbers: edge cases,
//! errors that name the element, and round trips against malachite.
mod common;

use malachite_base::num::arithmetic::traits::Pow;
use malachite_nz::natural::Natural;
use mparray::int::parse::{format_all, format_one, parse_into, parse_one, radix_of};
use mparray::{Error, IntArray, Radix};

fn pow2(k: u64) -> Natural {
    Natural::from(2u32).pow(k)
}

/// Parses `s` at `bits`; the value as a natural, or the error.
fn parse(s: &str, bits: u64) -> Result<Natural, Error> {
    let mut out = vec![u64::MAX; (bits / 64) as usize];
    parse_one(s, 7, &mut out).map(|()| Natural::from_limbs_asc(&out))
}

/// Expects a parse error at element 7 whose reason contains `why`.
fn parse_err(s: &str, bits: u64, why: &str) {
    match parse(s, bits) {
        Err(e @ Error::Parse { index: 7, .. }) => {
            let m = e.to_string();
            assert!(m.contains(why), "{s:?}: {m:?} lacks {why:?}");
            assert!(m.starts_with("element 7: "), "{m}");
        }
        other => panic!("{s:?}: expected a parse error, got {other:?}"),
    }
}

fn too_wide(s: &str, bits: u64, needed: u64) {
    match parse(s, bits) {
        Err(Error::TooWide {
            index: 7,
            needed: n,
            width,
        }) => assert_eq!((n, width), (needed, bits), "{s:?}"),
        other => panic!("{s:?}: expected too wide, got {other:?}"),
    }
}

#[test]
fn plain_values() {
    for bits in [64, 128, 192] {
        assert_eq!(parse("0", bits).unwrap(), 0u32);
        assert_eq!(parse("0x0", bits).unwrap(), 0u32);
        assert_eq!(parse("00000", bits).unwrap(), 0u32);
        assert_eq!(parse("0x0000", bits).unwrap(), 0u32);
        assert_eq!(parse("42", bits).unwrap(), 42u32);
        assert_eq!(parse("0x2a", bits).unwrap(), 42u32);
        assert_eq!(parse("0X2A", bits).unwrap(), 42u32);
        assert_eq!(parse("0x2A", bits).unwrap(), 42u32);
        assert_eq!(parse("007", bits).unwrap(), 7u32);
        assert_eq!(parse(" \t 5 \r\n", bits).unwrap(), 5u32);
        assert_eq!(parse("18446744073709551615", bits).unwrap(), u64::MAX);
        assert_eq!(parse("0xffffffffffffffff", bits).unwrap(), u64::MAX);
        assert_eq!(
            parse("9999999999999999999", bits).unwrap(),
            9999999999999999999u64
        );
    }
    assert_eq!(
        parse("18446744073709551616", 128).unwrap(),
        pow2(64),
        "20 digits"
    );
    assert_eq!(parse("0x10000000000000000", 128).unwrap(), pow2(64));
}

#[test]
fn limits_of_each_width() {
    for bits in [64u64, 128, 192, 256, 4096, 1 << 16, 1 << 20] {
        let max = pow2(bits) - Natural::from(1u32);
        let over = pow2(bits);
        for (text, ok) in [
            (max.to_string(), true),
            (format!("0x{max:x}"), true),
            (format!("0x{max:X}"), true),
            (format!("000{max}"), true),
            (format!("0x{}{max:x}", "0".repeat(100)), true),
            (over.to_string(), false),
            (format!("0x{over:x}"), false),
            (format!("0x0000{over:x}"), false),
        ] {
            match parse(&text, bits) {
                Ok(v) => {
                    assert!(ok, "{bits}: accepted a value of {bits}+1 bits");
                    assert_eq!(v, max, "{bits} bits");
                }
                Err(Error::TooWide { needed, width, .. }) => {
                    assert!(!ok, "{bits}: rejected 2^W-1");
                    assert_eq!((needed, width), (bits + 1, bits));
                }
                Err(e) => panic!("{bits}: {e}"),
            }
        }
        // 2^(W-1) fits; much wider values report their exact size.
        assert_eq!(
            parse(&pow2(bits - 1).to_string(), bits).unwrap(),
            pow2(bits - 1)
        );
        too_wide(&pow2(bits + 70).to_string(), bits, bits + 71);
        too_wide(
            &format!("0x3{}", "0".repeat(bits as usize / 4)),
            bits,
            bits + 2,
        );
    }
    // Hex top digits of every size.
    for (d, n) in [
        ("1", 65),
        ("2", 66),
        ("3", 66),
        ("7", 67),
        ("8", 68),
        ("f", 68),
    ] {
        too_wide(&format!("0x{d}{}", "0".repeat(16)), 64, n);
    }
}

#[test]
fn malformed() {
    parse_err("", 64, "empty");
    parse_err("   ", 64, "empty");
    parse_err("0x", 64, "no digits after 0x");
    parse_err("0X", 64, "no digits after 0x");
    parse_err(" 0x ", 64, "no digits after 0x");
    parse_err("+5", 64, "sign");
    parse_err("-1", 64, "negative");
    parse_err("-0", 64, "negative");
    parse_err("1 2", 64, "white space inside the number at offset 1");
    parse_err("0x1 2", 64, "white space inside the number at offset 3");
    parse_err("12a", 64, "invalid decimal digit 'a' at offset 2");
    parse_err("  12a", 64, "cannot parse \"12a\"");
    parse_err("0x12g", 64, "invalid hex digit 'g' at offset 4");
    parse_err("0xx1", 64, "invalid hex digit 'x' at offset 2");
    parse_err("1_000", 64, "invalid decimal digit '_' at offset 1");
    parse_err("1,000", 64, "invalid decimal digit ','");
    parse_err("1.5", 64, "invalid decimal digit '.'");
    parse_err("1e5", 64, "invalid decimal digit 'e'");
    parse_err("0b101", 64, "invalid decimal digit 'b' at offset 1");
    parse_err("0o17", 64, "invalid decimal digit 'o'");
    parse_err("x10", 64, "invalid decimal digit 'x' at offset 0");
    parse_err("١٢", 64, "invalid decimal digit '١' at offset 0");
    parse_err("12é", 64, "invalid decimal digit 'é' at offset 2");
    parse_err("0xé", 64, "invalid hex digit 'é' at offset 2");
    parse_err("5\u{0}", 64, "offset 1");
    // A long bad input is echoed shortened.
    let long = format!("{}z", "1".repeat(500));
    match parse(&long, 64) {
        Err(e @ Error::Parse { .. }) => {
            let m = e.to_string();
            assert!(m.contains("...") && m.len() < 200, "{m}");
            assert!(m.contains("offset 500"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn output_is_zero_filled_on_error_and_success() {
    let mut out = vec![u64::MAX; 3];
    parse_one("5", 0, &mut out).unwrap();
    assert_eq!(out, [5, 0, 0]);
    out.fill(u64::MAX);
    assert!(parse_one("5x", 0, &mut out).is_err());
    assert_eq!(out, [0, 0, 0]);
}

#[test]
fn errors_name_the_first_bad_element() {
    let mut items: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
    items[4321] = "bad".into();
    items[3000] = "0x".into();
    items[4999] = "-1".into();
    match IntArray::from_strs(64, &items) {
        Err(Error::Parse { index, text, .. }) => assert_eq!((index, text.as_str()), (3000, "0x")),
        other => panic!("{other:?}"),
    }
    items[2000] = pow2(64).to_string();
    match IntArray::from_strs(64, &items) {
        Err(Error::TooWide { index, .. }) => assert_eq!(index, 2000),
        other => panic!("{other:?}"),
    }
    // Sizes that do not match are an error, not a truncation.
    let mut out = vec![0u64; 3];
    assert!(matches!(
        parse_into(&["1", "2"], 2, &mut out),
        Err(Error::Shape(_))
    ));
    assert!(IntArray::from_strs(100, &["1"]).is_err());
}

#[test]
fn formatting() {
    assert_eq!(format_one(&[0, 0], Radix::Dec), "0");
    assert_eq!(format_one(&[0, 0], Radix::Hex), "0x0");
    assert_eq!(format_one(&[0xab, 0], Radix::Hex), "0xab");
    assert_eq!(format_one(&[1, 1], Radix::Hex), "0x10000000000000001");
    assert_eq!(format_one(&[0, 1, 0], Radix::Dec), "18446744073709551616");
    assert_eq!(
        format_one(&[u64::MAX; 2], Radix::Dec),
        u128::MAX.to_string()
    );
    assert_eq!(format_one(&[u64::MAX], Radix::Dec), u64::MAX.to_string());
    assert_eq!(
        format_one(&[0, 0, 1], Radix::Hex),
        format!("0x1{}", "0".repeat(32))
    );
    assert_eq!(format_all(&[1, 0, 2, 0], 2, Radix::Dec), ["1", "2"]);
    assert_eq!(radix_of("  0x5"), Radix::Hex);
    assert_eq!(radix_of("0X5"), Radix::Hex);
    assert_eq!(radix_of("05"), Radix::Dec);
    assert_eq!(radix_of("x5"), Radix::Dec);
}

#[test]
fn round_trips_against_malachite() {
    let seed = common::seed();
    for (k, &limbs) in [1usize, 2, 3, 4, 7, 16, 64, 65, 1024].iter().enumerate() {
        let bits = 64 * limbs as u64;
        let n = if limbs > 64 { 20 } else { 300 };
        let a = IntArray::random_lengths(&mparray::Engine::Cpu, n, bits, seed ^ k as u64, 1, limbs)
            .unwrap();
        let nats = a.to_naturals().unwrap();
        let dec = a.to_strings(Radix::Dec).unwrap();
        let hex = a.to_strings(Radix::Hex).unwrap();
        for i in 0..n {
            assert_eq!(dec[i], nats[i].to_string(), "dec {bits} bits element {i}");
            assert_eq!(
                hex[i],
                format!("0x{:x}", nats[i]),
                "hex {bits} bits element {i}"
            );
        }
        for strs in [&dec, &hex] {
            let back = IntArray::from_strs(bits, strs).unwrap();
            assert_eq!(
                back.to_limbs().unwrap(),
                a.to_limbs().unwrap(),
                "{bits} bits"
            );
        }
        // Upper-case hex and leading zeros parse to the same values.
        let upper: Vec<String> = nats.iter().map(|x| format!("0X00{x:X}")).collect();
        let zeros: Vec<String> = nats.iter().map(|x| format!("000{x}")).collect();
        for strs in [&upper, &zeros] {
            let back = IntArray::from_strs(bits, strs).unwrap();
            assert_eq!(back.to_naturals().unwrap(), nats, "{bits} bits");
        }
    }
}
