//! Text to stdout: past anstream when there is nothing for it to strip or translate.

use std::io::Write;

/// Write `text` to stdout (a closed pipe is no panic). Printable ASCII, tabs and line breaks go
/// straight to stdout, without anstream's per-call terminal and environment checks and its
/// byte-by-byte scan (a validate of a thousand specs prints ~1 MB of findings; issue 41);
/// anything else through anstream, which strips colours where they do not belong.
pub fn write(text: &str) {
    if plain_ascii(text) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        let _ = o.flush();
        return;
    }
    let mut o = anstream::stdout();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Printable ASCII, tabs and line breaks only: text every `anstream` mode writes unchanged.
fn plain_ascii(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' '..=b'~' | b'\n' | b'\r' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// What [`write`] writes past anstream is what anstream's stripping would have written
        /// (stdout not a terminal, or NO_COLOR): for such text stripping changes nothing.
        #[test]
        fn plain_ascii_text_is_what_anstream_writes(text in "[ -~\t\r\n]{0,200}") {
            prop_assert!(plain_ascii(&text));
            prop_assert_eq!(anstream::adapter::strip_str(&text).to_string(), text);
        }

        /// Text with anything else (escape sequences, other controls, non-ASCII) goes through
        /// anstream.
        #[test]
        fn other_text_goes_through_anstream(a in "[ -~]{0,20}", c in "[\u{0}-\u{8}\u{b}\u{c}\u{e}-\u{1f}\u{7f}-\u{a0}é漢]", b in "[ -~]{0,20}") {
            let text = format!("{a}{c}{b}");
            prop_assert!(!plain_ascii(&text));
        }
    }
}
