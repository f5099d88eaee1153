//! What a RON file's reader says when the file does not fit its shape, in the
//! words of the file (its sections and fields), not of the Rust types that
//! read it.

use ron::error::Error;

/// `code` as a sentence for the author of the file. An unknown field or
/// variant names the place it was met: `place` gives the file's word for a
/// reading type (`RawChip` is the section `chip`), and a name it does not
/// know is one the file writes itself (an enum variant's, `Random`). The
/// fields or variants that may stand there follow. A value that fits none of
/// a type's forms says what `place` calls them (`Num`: a whole number or an
/// expression). Anything else is the reader's own message.
pub fn describe(code: &Error, place: impl Fn(&str) -> Option<&'static str>) -> String {
    let list = |expected: &[&str]| {
        expected
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let within = |outer: &Option<String>| match outer {
        Some(o) => match place(o) {
            Some(p) => format!(" in {p}"),
            None => format!(" in `{o}`"),
        },
        None => String::new(),
    };
    match code {
        Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => format!(
            "unknown field `{found}`{}: the fields are {}",
            within(outer),
            list(expected)
        ),
        Error::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => format!(
            "unknown `{found}`{}: it is one of {}",
            within(outer),
            list(expected)
        ),
        Error::MissingStructField { field, outer } => {
            format!("`{field}` is missing{}", within(outer))
        }
        Error::DuplicateStructField { field, outer } => {
            format!("`{field}` is given twice{}", within(outer))
        }
        Error::Message(m) => {
            match m.strip_prefix("data did not match any variant of untagged enum ") {
                // A value of a type that takes several forms (a number, or an
                // expression): `place` says what they are.
                Some(name) => match place(name) {
                    Some(forms) => format!("expected {forms}"),
                    None => m.clone(),
                },
                None => m.clone(),
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(name: &str) -> Option<&'static str> {
        match name {
            "RawChip" => Some("`chip`"),
            "LaunchSpec" => Some("the file"),
            "Num" => Some("a whole number"),
            _ => None,
        }
    }

    #[test]
    fn an_unknown_field_is_named_with_its_section_and_the_fields_there() {
        let e = Error::NoSuchStructField {
            expected: &["sms", "clock_mhz"],
            found: "smz".into(),
            outer: Some("RawChip".into()),
        };
        assert_eq!(
            describe(&e, place),
            "unknown field `smz` in `chip`: the fields are `sms`, `clock_mhz`"
        );
    }

    #[test]
    fn other_errors_keep_the_readers_words() {
        let e = Error::ExpectedInteger;
        assert_eq!(describe(&e, place), e.to_string());
        let e = Error::MissingStructField {
            field: "kernel",
            outer: Some("LaunchSpec".into()),
        };
        assert_eq!(describe(&e, place), "`kernel` is missing in the file");
        let e = Error::Message("data did not match any variant of untagged enum Num".into());
        assert_eq!(describe(&e, place), "expected a whole number");
        let e = Error::Message("data did not match any variant of untagged enum Other".into());
        assert_eq!(describe(&e, place), e.to_string());
        let e = Error::NoSuchStructField {
            expected: &["seed", "lo", "hi"],
            found: "sed".into(),
            outer: Some("Random".into()),
        };
        assert_eq!(
            describe(&e, place),
            "unknown field `sed` in `Random`: the fields are `seed`, `lo`, `hi`"
        );
    }
}
