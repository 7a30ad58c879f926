//! CRC-32 (IEEE 802.3, the zlib/gzip polynomial), table-driven. Twenty lines
//! do not earn a dependency.

// Runs at compile time: an index out of bounds would fail the build.
#[allow(clippy::indexing_slicing)]
const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = table();

pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        // `& 0xFF` keeps the index below the table's 256 entries.
        #[allow(clippy::indexing_slicing)]
        let next = TABLE[((c ^ b as u32) & 0xFF) as usize];
        c = next ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_values() {
        assert_eq!(super::crc32(b""), 0);
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
