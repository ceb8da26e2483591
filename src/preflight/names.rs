//! Names Azure derives at deployment time, computed here exactly as ARM does so preflight and
//! deploy can check them before the deployment runs.
//!
//! `uniqueString(...)`: ARM joins its arguments with `-`, hashes the UTF-8 bytes with the 64-bit
//! MurmurHash variant of Microsoft's ResourceStack library (two 32-bit lanes, MurmurHash3-style
//! mixing with the constants below, seed 0) and writes the 64 bits as 13 base-32 digits
//! (`a-z2-7`), most significant first. The Microsoft Learn page of the function documents only
//! "13 characters, base-32 hash"; the algorithm was reconstructed from public re-implementations
//! and is pinned by the values Azure/terraform-provider-azapi's ARM-compatible `unique_string`
//! publishes (see the tests); the same algorithm is Logic Apps' ResourceStack `MurmurHash64`.

/// ARM's `uniqueString(args...)`.
pub fn unique_string(args: &[&str]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut hash = murmur64(args.join("-").as_bytes());
    // five bits at a time from the top; the 13th digit is the last four bits and a zero
    (0..13)
        .map(|_| {
            let digit = ALPHABET[(hash >> 59) as usize] as char;
            hash <<= 5;
            digit
        })
        .collect()
}

/// The 64-bit MurmurHash of ARM's `uniqueString`.
fn murmur64(data: &[u8]) -> u64 {
    const C1: u32 = 0x239b_961b;
    const C2: u32 = 0xab0e_9789;
    let le32 = |b: &[u8]| -> u32 {
        b.iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | (u32::from(x) << (8 * i)))
    };
    let mix1 = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mix2 = |k: u32| k.wrapping_mul(C2).rotate_left(17).wrapping_mul(C1);
    let (mut h1, mut h2) = (0u32, 0u32);
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        h1 = (h1 ^ mix1(le32(&c[..4])))
            .rotate_left(19)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x561c_cd1b);
        h2 = (h2 ^ mix2(le32(&c[4..])))
            .rotate_left(13)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x0bca_a747);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h1 ^= mix1(le32(&rest[..rest.len().min(4)]));
        if rest.len() > 4 {
            h2 ^= mix2(le32(&rest[4..]));
        }
    }
    let len = data.len() as u32;
    let fmix = |mut h: u32| {
        h = (h ^ (h >> 16)).wrapping_mul(0x85eb_ca6b);
        h = (h ^ (h >> 13)).wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    };
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (u64::from(h2) << 32) | u64::from(h1)
}

/// `resourceGroup().id` of a group in a subscription, spelled as ARM spells it: the
/// subscription GUID in lower case (ARM stores it so), the group's name as the group has it.
pub fn resource_group_id(subscription: &str, rg: &str) -> String {
    format!(
        "/subscriptions/{}/resourceGroups/{rg}",
        subscription.to_ascii_lowercase()
    )
}

/// The vault name the template derives when the spec names none:
/// `<prefix>-<uniqueString(resourceGroup().id)>` (templates/keyvault.bicep.hbs, src/emit/arm.rs).
/// `group_id` is the group's `id` as ARM returns it, or [`resource_group_id`] for a group that
/// does not exist yet.
pub fn derived_vault_name(prefix: &str, group_id: &str) -> String {
    format!("{prefix}-{}", unique_string(&[group_id]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_string_matches_values_arm_produced() {
        // Azure/terraform-provider-azapi: its `unique_string` provider function ("an Azure
        // equivalent uniqueString value", for migrating resources named by ARM):
        // internal/services/functions/unique_string_function_test.go and the function's example
        assert_eq!(
            unique_string(&[
                "/subscriptions/00000000-0000-0000-0000-000000000000",
                "resource-id"
            ]),
            "cwvxuqg24sifi"
        );
        assert_eq!(
            unique_string(&[
                "/subscriptions/12345678-1234-1234-1234-123456789012/resourceGroups/my-rg",
                "Microsoft.Storage/storageAccounts"
            ]),
            "z22rah77jfqry"
        );
        // values a public re-implementation lists as checked against Bicep's uniqueString(),
        // covering every tail length and several arguments joined by `-`
        assert_eq!(unique_string(&["test"]), "rbgf3xv4ufgzg");
        assert_eq!(unique_string(&["abc"]), "cgtzqvhu4i23s");
        assert_eq!(unique_string(&["hello", "world"]), "a7wkljktk6wne");
        assert_eq!(unique_string(&["foo", "bar", "baz"]), "xzi4ioaxtmth4");
        assert_eq!(
            unique_string(&[
                "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/my-rg"
            ]),
            "bmg7c6xu4tw46"
        );
    }

    #[test]
    fn derived_vault_names_are_the_prefix_and_the_group_hash() {
        let id = resource_group_id("00000000-0000-0000-0000-000000000000", "my-rg");
        assert_eq!(
            id,
            "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/my-rg"
        );
        assert_eq!(
            resource_group_id("ABCDEF00-0000-0000-0000-000000000000", "My-RG"),
            "/subscriptions/abcdef00-0000-0000-0000-000000000000/resourceGroups/My-RG"
        );
        let n = derived_vault_name("kv-shortvi", &id);
        assert_eq!(n, "kv-shortvi-bmg7c6xu4tw46");
        assert!(n.len() <= 24);
    }
}
