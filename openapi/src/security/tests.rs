use super::scheme_word;
use serde_json::json;

#[test]
fn a_schemes_word_comes_from_its_extension_or_its_description() {
    let word = |scheme: serde_json::Value| scheme_word(&scheme);
    let described = |text: &str| word(json!({ "type": "apiKey", "description": text }));
    assert_eq!(
        described("Token-based authentication with required prefix \"Token\""),
        Some("Token".to_owned())
    );
    assert_eq!(
        described("The client's key, prefixed with 'ApiKey'."),
        Some("ApiKey".to_owned())
    );
    assert_eq!(
        described("Send `Authorization: SSWS <api token>`."),
        Some("SSWS".to_owned())
    );
    assert_eq!(
        described("For example \"Bot {token}\"."),
        Some("Bot".to_owned())
    );
    assert_eq!(
        described("Format: `Bearer YOUR_KEY`"),
        Some("Bearer".to_owned())
    );
    assert_eq!(
        word(json!({ "x-fern-header": { "prefix": "Key" }, "description": "\"Token\"" })),
        Some("Key".to_owned())
    );
    // Not a word, or no value shown: none.
    assert_eq!(described("The key, as \"sk_live abc def\"."), None);
    assert_eq!(described("Your key; see the prefix docs."), None);
    assert_eq!(described("Prefix \"a b\" then `x`"), None);
    assert_eq!(
        word(json!({ "x-fern-header": { "prefix": "Bad word" } })),
        None
    );
}
