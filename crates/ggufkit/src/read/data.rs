//! The checks of the bytes after the header: tensor data cut short (`truncated`, naming the first
//! tensor whose data or padding runs past the end) and bytes after the length the header implies
//! (`trailing_data`, the contract's definition: zeros that pad a tensor-less file to the
//! alignment, as ggml's writer does, are not trailing).
#![forbid(unsafe_code)]

use crate::read::index::{tensor_extent, tensor_name, Header};
use crate::rules::{self, padded_end, show, Report};
use crate::wire::align_up;

/// Checks what the header implies against the file's length `total`: data cut short, trailing
/// bytes. `bytes` holds the file from its start at least through the header (and, for a file
/// without tensors, through the padding after it).
pub(crate) fn check_data(h: &Header, bytes: &[u8], total: u64, report: &mut Report) {
    if total < h.file_size {
        // the first tensor whose padded data runs past the end
        let align = u64::from(h.alignment);
        let mut at = h.data_offset;
        let mut what = String::from("the tensor data");
        let src = bytes;
        for t in h.tensors.iter() {
            // the name is formatted only for the tensor that is reported
            let name = || show(tensor_name(src, t, h.endian));
            let (offset, size) = tensor_extent(src, h.endian, &h.tensors, t);
            let start = h.data_offset + offset;
            let data_end = start.saturating_add(size);
            let end = padded_end(start, size, align).unwrap_or(u64::MAX);
            if data_end > total {
                // the data itself is cut: the offending field is the data
                at = start;
                what = format!(
                    "the data of tensor '{}' ({} bytes from byte {at})",
                    name(),
                    size
                );
                break;
            }
            if end > total {
                // the data is whole but its padding is cut: the offending field is the padding
                at = data_end;
                what = format!(
                    "the padding after tensor '{}' ({} bytes from byte {at})",
                    name(),
                    end - data_end
                );
                break;
            }
        }
        report
            .errors
            .push(rules::truncated_data(at, total, h.file_size, &what));
    } else if total > h.file_size {
        let mut start = h.file_size;
        if h.tensors.is_empty() {
            // ggml's writer pads a tensor-less file to the alignment: zeros there are not trailing
            let align = u64::from(h.alignment);
            let pad_end = align_up(h.file_size, align).unwrap_or(u64::MAX).min(total);
            if bytes
                .get(h.file_size as usize..pad_end as usize)
                .is_some_and(|pad| pad.iter().all(|&b| b == 0))
            {
                start = pad_end;
            }
        }
        if total > start {
            let extra = total - start;
            let d = rules::trailing_data_warning(start, extra, h.file_size);
            report.warnings.push(d);
        }
    }
}

/// Where the bytes a verdict needs end, once the header parsed: a file without tensors may end in
/// zero padding to the alignment, which is not trailing data, and telling them apart needs those
/// bytes (a local file has them all). `None` when the header's bytes are enough.
pub(crate) fn verdict_bytes_end(h: &Header, total: u64) -> Option<u64> {
    (h.tensors.is_empty() && total > h.file_size).then(|| {
        crate::wire::align_up(h.file_size, u64::from(h.alignment))
            .unwrap_or(u64::MAX)
            .min(total)
    })
}
