//! Dequantize arbitrary bytes as every type, in both byte orders: no panic, the element count the
//! layout implies, the same floats as the parallel path, and errors (not panics) for sizes that
//! are not whole blocks. Also byte-swaps the blocks (twice: the identity) and quantizes back.
#![no_main]

use ggufkit::quant;
use ggufkit::{Endian, GgmlType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    // a few KiB cover every block layout; more only slows the fuzzer down
    let bytes = &bytes[..bytes.len().min(4096)];
    let endian = if sel & 0x80 != 0 {
        Endian::Big
    } else {
        Endian::Little
    };
    let types: Vec<GgmlType> = GgmlType::all().collect();
    // bit 7: byte order; bit 6: every type gets the bytes, else the low 6 bits pick one;
    // bit 5: also the parallel path
    let chosen: Vec<GgmlType> = if sel & 0x40 != 0 {
        types
    } else {
        vec![types[(sel & 0x3f) as usize % types.len()]]
    };
    for ty in chosen {
        if !quant::can_dequantize(ty) {
            assert!(quant::dequantize_to_vec(ty, bytes, endian).is_err());
            continue;
        }
        let bs = ty.type_size() as usize;
        let whole = &bytes[..bytes.len() / bs * bs];
        let out = quant::dequantize_to_vec(ty, whole, endian).expect("whole blocks decode");
        assert_eq!(
            out.len() as u64,
            (whole.len() / bs) as u64 * ty.block_size()
        );
        if sel & 0x20 != 0 {
            // the parallel path (rayon): only now and then, a thread hand-off costs milliseconds
            // on a loaded machine
            let mut par = vec![0f32; out.len()];
            quant::dequantize_par(ty, whole, endian, &mut par).expect("parallel decode");
            assert!(
                out.iter()
                    .zip(&par)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{ty}: parallel and serial dequantization differ"
            );
        }
        if whole.len() != bytes.len() {
            assert!(quant::dequantize_to_vec(ty, bytes, endian).is_err());
        }
        let mut wrong = vec![0f32; out.len() + 1];
        assert!(quant::dequantize(ty, whole, endian, &mut wrong).is_err());
        let mut swapped = whole.to_vec();
        if quant::byteswap_blocks(ty, &mut swapped).is_ok() {
            quant::byteswap_blocks(ty, &mut swapped).expect("swaps twice");
            assert_eq!(swapped, whole, "{ty}: swapping twice is the identity");
        }
        if quant::can_quantize(ty) && out.len() <= 1024 && out.iter().all(|x| x.is_finite()) {
            let mut q = Vec::new();
            quant::quantize(ty, &out, &mut q).expect("quantizes what it dequantized");
            assert_eq!(q.len(), whole.len());
        }
    }
});
