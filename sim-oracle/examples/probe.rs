//! Prints nvdisasm's text for each hexadecimal word given on the command line.
use sim_oracle::tools::{Tools, Verdict};
fn main() {
    let words: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).expect("hex word"))
        .collect();
    let tools = Tools::locate().expect("oracle tools");
    for (w, v) in words
        .iter()
        .zip(tools.disasm_words(&words).expect("nvdisasm"))
    {
        match v {
            Verdict::Text(t) => println!("{w:#018x}  {t}"),
            Verdict::Rejected(m) => println!("{w:#018x}  rejected: {m}"),
        }
    }
}
