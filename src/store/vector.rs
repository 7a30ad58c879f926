//! Embeddings in records: f32 little-endian bytes in base64, a third of the
//! size of JSON numbers and exact to the bit.

use serde::{Deserialize, Deserializer, Serializer};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let byte = |i: usize| *c.get(i).unwrap_or(&0) as u32;
        let n = byte(0) << 16 | byte(1) << 8 | byte(2);
        for i in 0..4 {
            let digit = ALPHABET.get((n >> (18 - 6 * i) & 63) as usize).filter(|_| i <= c.len());
            out.push(digit.map_or('=', |&d| d as char));
        }
    }
    out
}

/// The value of a base64 digit (by range: a search of `ALPHABET` per
/// character made decoding 2 KB per vector slower than parsing its record).
fn digit(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(v as u32)
}

fn decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = digit(c)?;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

pub fn serialize<S: Serializer>(v: &[f32], s: S) -> Result<S::Ok, S::Error> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    s.serialize_str(&encode(&bytes))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
    let s = String::deserialize(d)?;
    let bytes = decode(&s).filter(|b| b.len() % 4 == 0).ok_or_else(|| serde::de::Error::custom("invalid base64 vector"))?;
    Ok(bytes.chunks_exact(4).filter_map(|c| c.try_into().ok()).map(f32::from_le_bytes).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip_is_exact() {
        for n in 0..10 {
            let bytes: Vec<u8> = (0..n * 7).map(|i| (i * 37 % 256) as u8).collect();
            assert_eq!(super::decode(&super::encode(&bytes)).unwrap(), bytes);
        }
        assert_eq!(super::encode(b"Man"), "TWFu");
        assert_eq!(super::encode(b"Ma"), "TWE=");
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(super::decode(&super::encode(&all)).unwrap(), all);
        for (i, &c) in super::ALPHABET.iter().enumerate() {
            assert_eq!(super::digit(c), Some(i as u32));
        }
        assert_eq!(super::decode("TW-u"), None);
        assert_eq!(super::decode("TWé"), None);
    }
}
