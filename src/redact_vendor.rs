//! The general rule for a vendor's token that no specific rule names (issue 38): a short
//! prefix naming the vendor (`xyz_`, `abc-`, `dop_v1_`) and then a body of 30 or more
//! characters that looks random. Read on one word (`[A-Za-z0-9_-]`), from its start, once;
//! integer arithmetic only (the lean wasm carries no floating-point library).
//!
//! What looks random, measured on the body's letters and digits:
//! - 30 or more of them, separators (`-`, `_`) at most one in ten (base64url, not a slug);
//! - digits among the letters, 12 distinct characters at least;
//! - short runs of one class: with both cases, a class change (lower, upper, digit) every 2.5
//!   characters at least (random base62: one in 1.6; an identifier in camel case changes
//!   once or twice a word: one in 2.6 to 3), and less than a third of its letters in
//!   lower-case runs of 4 or more (an identifier's words); with one case and digits, 2 digits
//!   at least and a change every 4 characters.
//! Random bodies missed by chance (measured on 2,000 each): base62 of 30 characters 3.5 %,
//! of 40 1.5 %; lower case and digits of 30 4.3 %, of 40 2 %.
//!
//! Kept: a body all hexadecimal, or with a run of 16 or more hexadecimal digits between
//! separators (a hash, a git commit id in a branch or file name — its prefix may name anything), a
//! prefix that names a hash algorithm (`sha512-…`: a lockfile's integrity), the ids model
//! APIs and hosts hand out (`toolu_…`, `call_…`, `chatcmpl-…`), a first segment longer than
//! 10 characters (a Nix store path's hash, an identifier), UUIDs (their segments are short:
//! separators one in ten at most).

use super::{hit, tick, Hit};

/// The fewest letters and digits a body has.
const MIN_BODY: usize = 30;
/// A word longer than this is not read as a token (base64 data).
const MAX_WORD: usize = 512;

/// First segments that name ids, not credentials: model APIs' tool call, message, request and
/// response ids, hosts' session ids (compared in any case).
const IDS: &[&[u8]] = &[
    b"toolu", b"srvtoolu", b"call", b"chatcmpl", b"msg", b"req", b"resp", b"rs", b"fc",
    b"run", b"thread", b"asst", b"file", b"batch", b"evt", b"ses", b"session", b"conv",
    b"item", b"step", b"ctc", b"ws", b"span", b"trace",
];

/// First segments that name a hash algorithm (the body is a content hash).
const HASHES: &[&[u8]] = &[
    b"sha", b"sha1", b"sha224", b"sha256", b"sha384", b"sha512", b"sha3", b"md5", b"blake2b",
    b"blake2s", b"blake3", b"xxh3", b"xxh64", b"xxh128", b"crc32", b"murmur3", b"fnv1a",
];

/// The word `[i, j)` when it is a vendor prefix and a random-looking body: the whole word.
pub(super) fn token(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let w = &b[i..j];
    if w.len() < MIN_BODY + 3 || w.len() > MAX_WORD {
        return None;
    }
    // the prefix: one to three segments of letters and digits (the first of 2 to 10 from a
    // letter, the others of 1 to 10), each followed by `_` or `-`
    let mut k = 0;
    let mut segs = 0;
    while segs < 3 {
        let s = k;
        let lim = (s + 11).min(w.len());
        while k < lim && w[k].is_ascii_alphanumeric() {
            tick();
            k += 1;
        }
        let len = k - s;
        let sep = k < w.len() && (w[k] == b'_' || w[k] == b'-');
        if !sep || len == 0 || len > 10 {
            k = s;
            break;
        }
        if segs == 0 {
            let first = &w[s..k];
            if len < 2
                || !first[0].is_ascii_alphabetic()
                || IDS.iter().chain(HASHES).any(|p| first.eq_ignore_ascii_case(p))
            {
                return None;
            }
        }
        k += 1;
        segs += 1;
        // the body begins where a long run begins
        let next = w[k..].iter().take(11).take_while(|c| c.is_ascii_alphanumeric()).count();
        if next > 10 {
            break;
        }
    }
    if segs == 0 {
        return None;
    }
    random_body(&w[k..]).then(|| hit(i, j, "vendor-token"))?
}

/// The class of a letter or digit: 0 lower case, 1 upper case, 2 digit.
fn class(c: u8) -> usize {
    if c.is_ascii_lowercase() {
        0
    } else if c.is_ascii_uppercase() {
        1
    } else {
        2
    }
}

/// Whether `body` (letters, digits, `-`, `_`) looks random (see the module's rules).
fn random_body(body: &[u8]) -> bool {
    let mut n = 0;
    let mut seps = 0;
    let mut count = [0usize; 3];
    let mut runs = 0;
    let mut last = usize::MAX;
    let mut seen = [false; 128];
    let mut distinct = 0;
    let mut hex = true;
    // letters in lower-case runs of 4 or more: an identifier's words (`…Settings…`)
    let mut wordy = 0;
    let mut lower = 0;
    // a segment of 16 or more hexadecimal digits is a hash (`fix-<commit id>-regression`)
    let (mut seg, mut seg_hex, mut hash) = (0, true, false);
    for &c in body {
        tick();
        if !c.is_ascii_alphanumeric() {
            hash |= seg >= 16 && seg_hex;
            (seg, seg_hex) = (0, true);
            seps += 1;
            if lower >= 4 {
                wordy += lower;
            }
            lower = 0;
            last = usize::MAX;
            continue;
        }
        n += 1;
        let k = class(c);
        count[k] += 1;
        if k != last {
            runs += 1;
            last = k;
        }
        if k == 0 {
            lower += 1;
        } else {
            if lower >= 4 {
                wordy += lower;
            }
            lower = 0;
        }
        if !seen[c as usize] {
            seen[c as usize] = true;
            distinct += 1;
        }
        hex &= c.is_ascii_hexdigit();
        seg += 1;
        seg_hex &= c.is_ascii_hexdigit();
    }
    if lower >= 4 {
        wordy += lower;
    }
    hash |= seg >= 16 && seg_hex;
    if n < MIN_BODY || seps * 10 > n || hex || hash || count[2] == 0 || distinct < 12 {
        return false;
    }
    match (count[0] > 0, count[1] > 0) {
        // both cases: a class change every 2.5 characters at least, and few words
        (true, true) => runs * 5 >= n * 2 && wordy * 3 < n,
        // one case and digits: 2 digits at least, a change every 4 characters
        (true, false) | (false, true) => count[2] >= 2 && runs * 4 >= n,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::redact::redact;
    use crate::test_rng::xorshift;

    const B62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const B36: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

    fn random(seed: u64, alphabet: &[u8], n: usize) -> String {
        let mut next = xorshift(seed);
        (0..n).map(|_| alphabet[next(alphabet.len())] as char).collect()
    }

    /// Made-up vendors (no specific rule names them), in the places a token turns up.
    #[test]
    fn a_vendor_prefix_and_a_random_body_is_redacted_wherever_it_stands() {
        let prefixes = ["xyz_", "abc-", "acme_live_", "zq_v1_", "Vendr-", "qq9_", "mytool_pat_"];
        let mut missed = vec![];
        let mut tried = 0;
        for seed in 1..400u64 {
            let p = prefixes[seed as usize % prefixes.len()];
            let (alphabet, n) = if seed % 3 == 0 { (B36, 40 + (seed as usize % 25)) } else { (B62, 30 + (seed as usize % 40)) };
            let body = random(seed, alphabet, n);
            let token = format!("{p}{body}");
            for text in [
                format!("the key {token} was used"),
                format!("{{\"value\": \"{token}\"}}"),
                format!("curl -H 'X-Vendor: {token}' https://api.example.com"),
                format!("/tmp/cache/{token}/out.json"),
                format!("{token}"),
            ] {
                tried += 1;
                let r = redact(&text);
                if r.contains(&body) {
                    missed.push(text);
                }
            }
        }
        // the rule's measure misses a few random bodies by chance (too few digits, long runs):
        // at most 3 in a hundred
        assert!(missed.len() * 100 <= tried * 3, "{} of {tried} missed: {:?}", missed.len(), &missed[..missed.len().min(5)]);
    }

    #[test]
    fn the_marker_names_the_rule_and_redacting_twice_changes_nothing() {
        let t = "token xyz_Q7mK2pV9dL4sX8rT1nB6cW3hZ5fJ0gYa done";
        let once = redact(t).into_owned();
        assert_eq!(once, "token [REDACTED:vendor-token] done");
        assert_eq!(redact(&once), once);
    }

    /// What is not a credential stays: ids hookwise and the hosts keep, hashes, identifiers, paths.
    #[test]
    fn ids_hashes_identifiers_and_paths_are_kept() {
        let kept = [
            // Agent Trace record ids (UUIDs) and content hashes, git commit ids
            "rec-550e8400-e29b-41d4-a716-446655440000",
            "{\"id\":\"123e4567-e89b-12d3-a456-426614174000\",\"content_hash\":\"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"}",
            "commit_3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",
            "build-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "v1.2.3-14-g1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
            "app-3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c.js",
            "fix-9fceb02d0ae598e95dc970b74767f19372d61af8-regression",
            "release-v2-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b-hotfix",
            // a lockfile's integrity (base64 of a SHA-512)
            "\"integrity\": \"sha512-Q7mK2pV9dL4sX8rT1nB6cW3hZ5fJ0gYaR2uE7iO9pL3kM8nB4vC1xZ6sA0dF5gH7jK9lQ2wE4rT6yU8iO0pA==\"",
            "sha384-oqVuAfXRKap7fdgcCY5uykM6JY8rsx7zX2eH4PC2ZKN8BvWdBnTKgZ3FYVkYd6rS",
            // model APIs' and hosts' ids (tool calls, messages, completions)
            "toolu_01D7FLrfh4GYq7yT1ULFeyMVxQ2pL8kR3nB5",
            "call_Q7mK2pV9dL4sX8rT1nB6cW3hZ5fJ0gYaR2uE",
            "chatcmpl-8pJr3Q7mK2pV9dL4sX8rT1nB6cW3hZ5fJ0g",
            "msg_01XFDUDYJgAACzvnptvVoYELQ7mK2pV9dL4s",
            // identifiers and names
            "xyz_getUserAccountSettingsFromCacheForTesting2024",
            "xyz_loadConfig2FromEnv3OrDefaultsWithRetry4Times",
            "my_parseHTTPResponseHeadersIntoMapV2AndCache3",
            "ab_ThisIsATestOfTheEmergencyBroadcastSystem1",
            "lib_base64EncodeDecodeUtf8StringsToBytes2Ways",
            "test_should_redact_every_vendor_token_in_the_logs_2024_v2",
            "my-component-name-with-many-segments-and-parts-01",
            "HOOKWISE_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT_FOR_THE_TEST",
            "xyz_abcdefghijklmnopqrstuvwxyz0123456789",
            "fixture_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa12",
            "order_123456789012345678901234567890123",
            "node_modules/.pnpm/@babel+core@7.24.0_supports-color@8.1.1/node_modules/@babel/core",
            "/nix/store/5rnfzla9kcx4mj5zdc7nlnv8na1najvg-glibc-2.38-27/lib",
            "src/components/UserAccountSettingsPanelWithValidation2.tsx",
        ];
        for t in kept {
            assert_eq!(redact(t), t, "{t}");
        }
    }
}
