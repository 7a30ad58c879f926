//! CRC-32 (IEEE 802.3, the zlib/gzip polynomial), slicing by 16: every
//! stored byte is checked on open, and a table lookup per byte made the
//! check most of the decoding time (225 of 420 ms natively for 66 MB,
//! 100,000 messages); eight tables read eight bytes per step, about six
//! times faster, and sixteen another quarter in the wasm (70 MiB: about
//! 56 -> 40 ms). The tables are built on first use (16 KiB of memory, no
//! data in the wasm). Thirty lines do not earn a dependency.

use std::sync::OnceLock;

const SLICES: usize = 16;

type Tables = [[u32; 256]; SLICES];

// Every index is a byte (`& 0xFF`, `>> 24` of a u32) or below 256 or 16.
#[allow(clippy::indexing_slicing)]
fn build() -> Box<Tables> {
    let mut t = Box::new([[0u32; 256]; SLICES]);
    for i in 0..256 {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        t[0][i] = c;
    }
    for i in 0..256 {
        for k in 1..SLICES {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
        }
    }
    t
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(build)
}

// As `build`: every index is a byte.
#[allow(clippy::indexing_slicing)]
pub fn crc32(data: &[u8]) -> u32 {
    let t = tables();
    let mut c = !0u32;
    let mut rest = data;
    // (bytes by name from `split_first_chunk`: `chunks_exact`'s `next` stayed a call per step at the wasm's opt-level)
    while let Some((&[b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15], tail)) = rest.split_first_chunk::<SLICES>() {
        let x = u32::from_le_bytes([b0, b1, b2, b3]) ^ c;
        c = t[15][(x & 0xFF) as usize]
            ^ t[14][((x >> 8) & 0xFF) as usize]
            ^ t[13][((x >> 16) & 0xFF) as usize]
            ^ t[12][(x >> 24) as usize]
            ^ t[11][usize::from(b4)]
            ^ t[10][usize::from(b5)]
            ^ t[9][usize::from(b6)]
            ^ t[8][usize::from(b7)]
            ^ t[7][usize::from(b8)]
            ^ t[6][usize::from(b9)]
            ^ t[5][usize::from(b10)]
            ^ t[4][usize::from(b11)]
            ^ t[3][usize::from(b12)]
            ^ t[2][usize::from(b13)]
            ^ t[1][usize::from(b14)]
            ^ t[0][usize::from(b15)];
        rest = tail;
    }
    for &b in rest {
        c = t[0][((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    /// The textbook form, a bit at a time.
    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn known_values() {
        assert_eq!(super::crc32(b""), 0);
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(super::crc32(b"The quick brown fox jumps over the lazy dog"), 0x414F_A339);
    }

    #[test]
    fn equals_the_bitwise_form_at_every_length_and_alignment() {
        let data: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for start in 0..8 {
            for end in start..data.len() {
                let slice = data.get(start..end).unwrap_or_default();
                assert_eq!(super::crc32(slice), bitwise(slice), "bytes {start}..{end}");
            }
        }
    }
}
