//! Decimal numbers written as text — option values from the environment, maenifold's weights
//! and scores, .NET time spans — read without `str::parse::<f64>`: core's correctly rounded
//! parser (Eisel-Lemire with a slow-path fallback) brings its code and a 10 KB table of powers
//! of five into the wasm, for numbers that are timeouts and weights.

/// `[+-]digits[.digits][(e|E)[+-]digits]` (digits on at least one side of the point), nothing
/// around it. The value is within a few units in the last place of the correctly rounded one:
/// the first 19 significant digits, scaled by a power of ten (so a number within a few units of
/// the largest finite one may read as infinity). `inf` and `NaN` are not numbers here.
pub fn parse_f64(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let mut mantissa: u64 = 0;
    let mut exp: i64 = 0;
    let mut digits = 0;
    let mut point = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    exp -= i64::from(point);
                } else {
                    exp += i64::from(!point); // a digit beyond the 19th: only its place counts
                }
            }
            b'.' if !point => point = true,
            b'e' | b'E' if digits > 0 => {
                let (sign, from) = match b.get(i + 1) {
                    Some(b'-') => (-1, i + 2),
                    Some(b'+') => (1, i + 2),
                    _ => (1, i + 1),
                };
                let tail = b.get(from..).filter(|t| !t.is_empty())?;
                let mut e: i64 = 0;
                for &d in tail {
                    if !d.is_ascii_digit() {
                        return None;
                    }
                    e = (e * 10 + i64::from(d - b'0')).min(100_000);
                }
                exp += sign * e;
                break;
            }
            _ => return None,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    let v = mantissa as f64;
    let scale = 10f64.powi(exp.unsigned_abs().min(400) as i32);
    let v = match (mantissa, exp >= 0) {
        (0, _) => 0.0,
        (_, true) => v * scale,
        // below ~1e-308 the scale overflows; two steps keep subnormal results
        (_, false) if exp < -300 => v / 1e300 / 10f64.powi((-exp - 300).min(400) as i32),
        (_, false) => v / scale,
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    fn close(a: f64, b: f64) -> bool {
        a == b || ((a - b) / b).abs() < 1e-15
    }

    #[test]
    fn reads_what_std_reads_within_an_ulp() {
        for s in [
            "0",
            "-0",
            "+1",
            "1.5",
            "01.8000000",
            "2000",
            "0.25",
            ".5",
            "5.",
            "1e3",
            "1E-3",
            "-2.5e+2",
            "123456789012345678901234567890",
            "0.000000000000000000000000001",
            "1.5e308",
            "4.9e-324",
            "2.2250738585072014e-308",
            "1e-400",
            "1e400",
            "3.14159265358979323846264338327950288",
            "1795368141117.6987",
            "1e0",
            "0e99",
        ] {
            let std = s.parse::<f64>();
            match (parse_f64(s), std) {
                (Some(ours), Ok(theirs)) => assert!(close(ours, theirs), "{s}: {ours} vs {theirs}"),
                (ours, theirs) => panic!("{s}: {ours:?} vs {theirs:?}"),
            }
        }
        // generated: random mantissas and exponents, printed in several ways
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = x % 10_000_000_000;
            let e = (x >> 40) as i32 % 40 - 20;
            for s in [
                format!("{m}e{e}"),
                format!("{}", m as f64 * 10f64.powi(e)),
                format!("0.{m}"),
            ] {
                let theirs: f64 = s.parse().unwrap();
                let ours = parse_f64(&s).unwrap();
                assert!(close(ours, theirs), "{s}: {ours} vs {theirs}");
            }
        }
    }

    #[test]
    fn refuses_what_is_not_a_plain_decimal() {
        for s in [
            "", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "1,5", "0x10", "inf",
            "-inf", "NaN", "infinity", "1_000", "--1", "1e5.5", "١",
        ] {
            assert_eq!(parse_f64(s), None, "{s:?}");
        }
    }
}
