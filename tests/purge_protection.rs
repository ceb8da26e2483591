//! Purge protection is the spec's choice where no disk encryption set needs it (issue 9 item
//! 3b): `security.keyVault.purgeProtection` defaults to true (the secure default); `false` is
//! rendered as a vault without `enablePurgeProtection` (the Key Vault API's description of
//! VaultProperties.enablePurgeProtection: "Enabling this functionality is irreversible - that
//! is, the property does not accept false as its value"; Learn, KeyVaultProperties.EnablePurgeProtection), and a customer-managed disk key keeps it forced with
//! the rule `cmk-needs-purge-protection` (a disk encryption set requires soft delete and purge
//! protection on its vault).

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::spec::Policy;
use serde_json::Value;

fn example(name: &str) -> (String, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    (std::fs::read_to_string(dir.join(name)).unwrap(), dir)
}

fn vault(template: &str) -> Value {
    let t: Value = serde_json::from_str(template).unwrap();
    t["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.KeyVault/vaults")
        .unwrap()["properties"]
        .clone()
}

#[test]
fn without_a_disk_encryption_set_purge_protection_follows_the_spec() {
    let (text, dir) = example("dev-notebook-t4.yaml");
    let prices = PriceTable::embedded();
    // the default: on
    let c = check_source(
        text.clone(),
        "dev.yaml",
        dir.clone(),
        &Policy::default(),
        prices,
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let v = vault(&gpuform::emit::arm_template(&c).unwrap());
    assert_eq!(v["enablePurgeProtection"], true);
    assert_eq!(v["enableSoftDelete"], true);
    // the spec says false: the property is left out (false is not a value Azure accepts)
    let off = text.replace(
        "  monitoring:\n",
        "  security: {keyVault: {purgeProtection: false}}\n  monitoring:\n",
    );
    assert_ne!(off, text);
    let c = check_source(off, "dev.yaml", dir, &Policy::default(), prices);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let v = vault(&gpuform::emit::arm_template(&c).unwrap());
    assert!(v.get("enablePurgeProtection").is_none(), "{v}");
    assert_eq!(v["enableSoftDelete"], true);
}

#[test]
fn a_customer_managed_key_keeps_purge_protection_forced() {
    let (text, dir) = example("llm-finetune-a100.yaml");
    let off = text.replace(
        "    diskEncryption: customerManagedKey",
        "    diskEncryption: customerManagedKey\n    keyVault: {purgeProtection: false}",
    );
    assert_ne!(off, text);
    let c = check_source(
        off,
        "llm.yaml",
        dir,
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "cmk-needs-purge-protection"),
        "{:?}",
        c.diagnostics
    );
    assert!(c.has_errors());
}
