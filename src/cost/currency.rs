//! The estimate in its currency: which lines an embedded (USD) figure priced, what each says
//! when that figure was converted, and what a line says when it cannot be priced in the
//! currency (the help names the command to run).

use crate::catalog::prices::{PriceKind, PriceOs};
use crate::facts::retail_prices;

use super::book::PriceBook;
use super::model::{Line, Missing};

/// What to run for prices in the book's currency.
fn run_for(book: &PriceBook) -> String {
    format!(
        "`gpuform cost SPEC --refresh-prices` asks the Retail Prices API in {0} (and, from the same meters in USD, for the rate); or give --prices FILE with Retail Prices API JSON fetched with {1}='{0}' and the same meters in USD beside it",
        book.currency,
        retail_prices::CURRENCY_PARAMETER
    )
}

/// The help of a missing VM price: where the embedded table has it in USD but the book cannot
/// use it, say so and what to run.
pub(super) fn vm_help(
    book: &PriceBook,
    size: &str,
    region: &str,
    os: PriceOs,
    kind: PriceKind,
) -> Option<String> {
    if book.embedded_usable() {
        return None;
    }
    match book.embedded_usd(size, region, os, kind) {
        Some(usd) => Some(format!(
            "the embedded table has it in USD only ({}/h) and no source gave a USD → {} rate: {}",
            crate::catalog::currency::Currency::USD.unit(usd),
            book.currency,
            run_for(book)
        )),
        None => Some(run_for(book)),
    }
}

/// The help of a missing disk price.
pub(super) fn disk_help(book: &PriceBook) -> String {
    if book.embedded_usable() {
        "supply it with --prices FILE (Retail Prices API items of serviceName 'Storage') or --refresh-prices".into()
    } else {
        run_for(book)
    }
}

/// Settle every line priced from an embedded (USD) table in a book in another currency: with a
/// rate the figure was converted (the line says at which rate, from where, of when); without one
/// it is withheld and listed as missing with what to run. USD books are left as they are.
pub(super) fn settle(book: &PriceBook, lines: &mut [Line], missing: &mut Vec<Missing>) {
    if book.currency.is_usd() {
        return;
    }
    for l in lines.iter_mut() {
        let Some(src) = l.source.clone() else {
            continue;
        };
        if !book.is_embedded(&src) {
            continue;
        }
        match &book.rate {
            Some(r) => {
                if l.converted.is_none() {
                    l.converted = Some(r.describe());
                }
            }
            None => {
                l.unit_price = None;
                l.amount = l.amount.map(|_| None);
                l.source = None;
                missing.push(Missing {
                    line: l.id.clone(),
                    price: format!("{} price of {}", book.currency, l.label),
                    help: format!(
                        "the embedded price is in USD and no source gave a USD → {} rate: {}",
                        book.currency,
                        run_for(book)
                    ),
                });
            }
        }
    }
}
