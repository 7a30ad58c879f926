//! Credential scanners: provider keys and tokens by their documented
//! prefixes and alphabets, private-key blocks, passwords in URLs, JWTs.
//!
//! Invariants: a key is matched only at a word start (not inside a longer
//! word or a base64 blob) and only as the whole run of its alphabet, so a
//! match never cuts a key in two; a prefix alone, or a body too short or too
//! uniform to be generated, is not a key. Kinds are stable names: they are
//! the `[redacted:KIND]` placeholders and the keys of `add()`'s report.

use super::scan::{at, before, classes, is_alnum, is_b64, is_b64url, run, slice, starts, starts_ci, word_start, Span};

/// Every credential in `b`, in no particular order (they may overlap).
pub fn find(b: &[u8], out: &mut Vec<Span>) {
    for i in 0..b.len() {
        let c = at(b, i);
        let keyed = if is_alnum(c) && word_start(b, i) {
            sk(b, i).or_else(|| aws_access(b, i)).or_else(|| slack(b, i)).or_else(|| prefixed(b, i))
        } else {
            None
        };
        let found = keyed.or_else(|| match c {
            b'h' => slack_webhook(b, i),
            b'e' if !is_b64url(before(b, i)) && before(b, i) != b'.' => jwt(b, i),
            b'-' => private_key(b, i),
            b':' => url_password(b, i),
            b's' | b'S' | b'a' | b'A' => aws_secret(b, i),
            _ => None,
        });
        if let Some(span) = found {
            out.push(span);
        }
    }
}

fn is_word(c: u8) -> bool {
    is_alnum(c) || c == b'_'
}

/// Keys known by their prefix alone: the prefix, the body's alphabet, its
/// least length, the kind. Stripe's publishable `pk_` keys are public by
/// design and kept. A table rather than a function per provider: smaller.
#[allow(clippy::type_complexity)]
const PREFIXED: [(&[u8], fn(u8) -> bool, usize, &str); 14] = [
    (b"sk_live_", is_alnum, 16, "stripe-key"),
    (b"sk_test_", is_alnum, 16, "stripe-key"),
    (b"rk_live_", is_alnum, 16, "stripe-key"),
    (b"rk_test_", is_alnum, 16, "stripe-key"),
    (b"whsec_", is_alnum, 24, "stripe-key"),
    (b"AIza", is_b64url, 30, "google-api-key"),
    (b"ya29.", is_b64url, 20, "google-api-key"),
    (b"GOCSPX-", is_b64url, 20, "google-api-key"),
    (b"ghp_", is_alnum, 30, "github-token"),
    (b"gho_", is_alnum, 30, "github-token"),
    (b"ghu_", is_alnum, 30, "github-token"),
    (b"ghs_", is_alnum, 30, "github-token"),
    (b"ghr_", is_alnum, 30, "github-token"),
    (b"github_pat_", is_word, 40, "github-token"),
];

/// A key of [`PREFIXED`] at `i`: its prefix, then the whole run of its
/// alphabet, at least its least length.
fn prefixed(b: &[u8], i: usize) -> Option<Span> {
    PREFIXED.iter().find_map(|&(prefix, class, min, kind)| {
        if !starts(b, i, prefix) {
            return None;
        }
        let end = run(b, i + prefix.len(), class);
        (end - i - prefix.len() >= min).then_some(Span { start: i, end, kind })
    })
}

/// OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`) and Anthropic
/// (`sk-ant-`) keys. The body must look generated (two character classes
/// and a digit), which `sk-learn` or a long CSS class name does not.
fn sk(b: &[u8], i: usize) -> Option<Span> {
    if !starts(b, i, b"sk-") {
        return None;
    }
    let end = run(b, i + 3, is_b64url);
    let body = slice(b, i + 3, end);
    let generated = classes(body) >= 2 && body.iter().any(u8::is_ascii_digit);
    let kind = if body.starts_with(b"ant-") { "anthropic-key" } else { "openai-key" };
    (body.len() >= 20 && generated).then_some(Span { start: i, end, kind })
}

/// AWS access key ids: a four-letter type prefix, then exactly 16 upper
/// case letters and digits.
fn aws_access(b: &[u8], i: usize) -> Option<Span> {
    const TYPES: [&[u8]; 11] = [b"AKIA", b"ASIA", b"ABIA", b"ACCA", b"AGPA", b"AIDA", b"AROA", b"AIPA", b"ANPA", b"ANVA", b"APKA"];
    TYPES.iter().find(|p| starts(b, i, p))?;
    let upper_or_digit = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let end = run(b, i + 4, upper_or_digit);
    (end - i == 20 && !is_alnum(at(b, end))).then_some(Span { start: i, end, kind: "aws-access-key" })
}

/// AWS secret access keys have no prefix: 40 base64 bytes right after a
/// name that says what they are (`aws_secret_access_key = `,
/// `"SecretAccessKey": "`, `AWS_SECRET_ACCESS_KEY=`).
fn aws_secret(b: &[u8], i: usize) -> Option<Span> {
    const NAMES: [&[u8]; 4] = [b"secret_access_key", b"secretaccesskey", b"secret-access-key", b"aws_secret_key"];
    let name = NAMES.iter().find(|n| starts_ci(b, i, n))?;
    let mut j = i + name.len();
    let glue = |c: u8| matches!(c, b' ' | b'\t' | b'"' | b'\'' | b':' | b'=' | b'\\');
    let start = run(b, j, glue);
    if start - j > 8 {
        return None;
    }
    j = run(b, start, is_b64);
    (j - start == 40 && at(b, j) != b'=').then_some(Span { start, end: j, kind: "aws-secret-key" })
}

/// Slack tokens (`xoxb-`, `xoxp-`, …).
fn slack(b: &[u8], i: usize) -> Option<Span> {
    if !starts(b, i, b"xox") || !matches!(at(b, i + 3), b'a' | b'b' | b'p' | b'r' | b's' | b'e' | b'o') || at(b, i + 4) != b'-' {
        return None;
    }
    let end = run(b, i + 5, |c| is_alnum(c) || c == b'-');
    let body = slice(b, i + 5, end);
    (body.len() >= 20 && body.iter().any(u8::is_ascii_digit)).then_some(Span { start: i, end, kind: "slack-token" })
}

/// Slack incoming-webhook URLs: the path is the secret; the whole URL goes.
fn slack_webhook(b: &[u8], i: usize) -> Option<Span> {
    const HOST: &[u8] = b"hooks.slack.com/";
    if !starts(b, i, HOST) || is_alnum(before(b, i)) && before(b, i) != b'/' {
        return None;
    }
    let end = run(b, i + HOST.len(), |c| is_alnum(c) || c == b'/' || c == b'_' || c == b'-');
    let start = if i >= 8 && starts(b, i - 8, b"https://") { i - 8 } else { i };
    (end - i - HOST.len() >= 20).then_some(Span { start, end, kind: "slack-token" })
}

/// JSON Web Tokens: base64url header and payload that both decode to a
/// JSON object (`eyJ`, `ey`), then a signature (empty for `alg: none`).
fn jwt(b: &[u8], i: usize) -> Option<Span> {
    if !starts(b, i, b"eyJ") {
        return None;
    }
    let head = run(b, i, is_b64url);
    if head - i < 10 || at(b, head) != b'.' || !starts(b, head + 1, b"ey") {
        return None;
    }
    let payload = run(b, head + 1, is_b64url);
    if payload - head - 1 < 10 || at(b, payload) != b'.' {
        return None;
    }
    let end = run(b, payload + 1, is_b64url);
    Some(Span { start: i, end, kind: "jwt" })
}

/// A PEM or OpenSSH private-key block, header to footer; a block cut short
/// (no footer) runs to the end of its base64, which may be escaped JSON.
fn private_key(b: &[u8], i: usize) -> Option<Span> {
    if !starts(b, i, b"-----BEGIN ") {
        return None;
    }
    let label_end = run(b, i + 11, |c| c.is_ascii_uppercase() || c == b' ');
    if !slice(b, i + 11, label_end).windows(11).any(|w| w == b"PRIVATE KEY") || !starts(b, label_end, b"-----") {
        return None;
    }
    let body = label_end + 5;
    let end = match find_from(b, body, b"-----END ") {
        Some(footer) => {
            let label = run(b, footer + 9, |c| c.is_ascii_uppercase() || c == b' ');
            if starts(b, label, b"-----") {
                label + 5
            } else {
                label
            }
        }
        None => run(b, body, |c| is_b64(c) || matches!(c, b'=' | b'\n' | b'\r' | b' ' | b'\\' | b':' | b',' | b'-')),
    };
    Some(Span { start: i, end, kind: "private-key" })
}

fn find_from(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// The password of `scheme://user:password@host`: only the password goes,
/// so the host stays readable. Already masked or templated passwords
/// (`****`, `${DB_PASS}`, `<password>`, a placeholder) are kept.
fn url_password(b: &[u8], i: usize) -> Option<Span> {
    if !starts(b, i, b"://") {
        return None;
    }
    let mut scheme = i;
    while scheme > 0 && (is_alnum(before(b, scheme)) || matches!(before(b, scheme), b'+' | b'.' | b'-')) {
        scheme -= 1;
    }
    if i - scheme < 2 || !at(b, scheme).is_ascii_alphabetic() {
        return None;
    }
    let from = i + 3;
    // Up to the path: a password may hold an unencoded `#` or `?` (people
    // paste them so), and the last `@` before the path ends it.
    let authority = run(b, from, |c| !matches!(c, b'/' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\' | 0) && !c.is_ascii_whitespace());
    let at_sign = (from..authority).rev().find(|&j| at(b, j) == b'@')?;
    let colon = (from..at_sign).find(|&j| at(b, j) == b':')?;
    // A query or fragment holding `:` and `@` (`?next=a:b@c`) is no user.
    if slice(b, from, colon).iter().any(|c| matches!(c, b'?' | b'#' | b'=' | b'&')) {
        return None;
    }
    let password = slice(b, colon + 1, at_sign);
    let templated = password.iter().all(|&c| c == b'*' || c == b'x' || c == b'X')
        || password.starts_with(b"$")
        || password.starts_with(b"{")
        || password.starts_with(b"<")
        || password.starts_with(b"%s")
        || password.starts_with(b"[redacted:");
    (!password.is_empty() && !templated).then_some(Span { start: colon + 1, end: at_sign, kind: "url-password" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        find(text.as_bytes(), &mut out);
        out.into_iter().map(|s| (s.kind, text[s.start..s.end].to_string())).collect()
    }

    #[test]
    fn providers_by_prefix() {
        let openai = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        assert_eq!(kinds(&format!("key {openai}.")), [("openai-key", openai.to_string())]);
        let ant = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1HgFe";
        assert_eq!(kinds(ant), [("anthropic-key", ant.to_string())]);
        assert_eq!(kinds("AKIAIOSFODNN7EXAMPLE")[0].0, "aws-access-key");
        assert_eq!(kinds("ghp_abcdefghijklmnopqrstuvwxyz0123456789")[0].0, "github-token");
        assert_eq!(kinds("xoxb-1234567890-0987654321-AbCdEfGhIjKl")[0].0, "slack-token");
        assert_eq!(kinds("sk_live_4eC39HqLyjWDarjtT1zdp7dc")[0].0, "stripe-key");
        assert_eq!(kinds("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q")[0].0, "google-api-key");
    }

    #[test]
    fn look_alikes_are_not_keys() {
        for text in [
            "sk-learn",
            "task-0123456789abcdefghijklmnop",
            "ask-questions-about-everything-here",
            "AKIAIOSFODNN7EXAMPLEX",
            "xAKIAIOSFODNN7EXAMPLE",
            "pk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "ghp_ prefix",
            "http://localhost:8080/",
            "ssh://git@github.com/a/b.git",
            "postgres://u:${PASS}@h/db",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    #[test]
    fn url_password_only_the_password() {
        assert_eq!(kinds("postgres://admin:p@ss:w0rd@db:5432/x"), [("url-password", "p@ss:w0rd".to_string())]);
        assert_eq!(kinds("redis://u:Xk9#mQ2$v@cache:6379/0"), [("url-password", "Xk9#mQ2$v".to_string())]);
        assert!(kinds("https://example.com?next=a:b@c").is_empty());
    }

    #[test]
    fn private_key_block_and_cut_block() {
        let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----";
        assert_eq!(kinds(&format!("a {block} b")), [("private-key", block.to_string())]);
        assert_eq!(kinds("-----BEGIN PRIVATE KEY-----\\nMIIEvQIB\\nAAKCAQ\" }")[0].1, "-----BEGIN PRIVATE KEY-----\\nMIIEvQIB\\nAAKCAQ");
        assert!(kinds("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----").is_empty());
    }

    #[test]
    fn jwt_needs_three_parts() {
        let t = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(kinds(t), [("jwt", t.to_string())]);
        assert!(kinds("eyJhbGciOiJIUzI1NiJ9").is_empty());
    }
}
