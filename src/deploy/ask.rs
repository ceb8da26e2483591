//! The question before a command changes Azure resources (deploy, destroy).

use std::io::{BufRead, Write};

/// Ask on the terminal; anything but y/yes is no.
pub fn confirm(question: &str) -> bool {
    let mut err = std::io::stderr();
    let _ = write!(err, "{}", crate::report::ci::text(question));
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}
