//! The ARM response shapes gpuform reads, parsed the way real subscriptions send them: family
//! names with spaces, capability values as strings, `az` output with numbers as strings and
//! `null` where REST omits a field.

use serde::{Deserialize, Deserializer, Serialize};

/// `null` → `T::default()` (az CLI prints `"restrictions": null`, `"zones": null`, ...).
pub(crate) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A number that `az` may have turned into a string (`"24"`), or that may be a float.
fn flexible_i64<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum N {
        I(i64),
        U(u64),
        F(f64),
        S(String),
    }
    match N::deserialize(d)? {
        N::I(i) => Ok(i),
        N::U(u) => Ok(i64::try_from(u).unwrap_or(i64::MAX)),
        N::F(f) => Ok(f as i64),
        N::S(s) => s
            .trim()
            .parse::<i64>()
            .or_else(|_| s.trim().parse::<f64>().map(|f| f as i64))
            .map_err(|_| serde::de::Error::custom(format!("expected a number, found {s:?}"))),
    }
}

// ---------------------------------------------------------------------------------------------
// Resource SKUs (GET /subscriptions/{id}/providers/Microsoft.Compute/skus, api 2021-07-01)

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSku {
    #[serde(default, deserialize_with = "null_default")]
    pub resource_type: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub size: Option<String>,
    /// Exactly the Compute usages `name.value` of the quota this size draws from.
    #[serde(default)]
    pub family: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub locations: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub location_info: Vec<LocationInfo>,
    #[serde(default, deserialize_with = "null_default")]
    pub capabilities: Vec<Capability>,
    #[serde(default, deserialize_with = "null_default")]
    pub restrictions: Vec<Restriction>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationInfo {
    #[serde(default, deserialize_with = "null_default")]
    pub location: String,
    #[serde(default, deserialize_with = "null_default")]
    pub zones: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Capability {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Restriction {
    /// `Location` (unusable in the region) or `Zone` (unusable in `restriction_info.zones`).
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub values: Vec<String>,
    #[serde(default)]
    pub restriction_info: Option<RestrictionInfo>,
    /// `NotAvailableForSubscription` or `QuotaId`.
    #[serde(default)]
    pub reason_code: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RestrictionInfo {
    #[serde(default, deserialize_with = "null_default")]
    pub locations: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub zones: Vec<String>,
}

impl ResourceSku {
    pub fn is_vm(&self) -> bool {
        self.resource_type.eq_ignore_ascii_case("virtualMachines")
    }

    /// A capability value (`"True"`, `"V1,V2"`, `"16"`); names compare case-insensitively.
    pub fn capability(&self, name: &str) -> Option<&str> {
        self.capabilities
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .map(|c| c.value.as_str())
    }

    /// `Some(true)` for `"True"`, `Some(false)` for `"False"`, `None` when absent.
    pub fn capability_bool(&self, name: &str) -> Option<bool> {
        self.capability(name)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Does this SKU entry describe `location`?
    pub fn in_location(&self, location: &str) -> bool {
        self.locations
            .iter()
            .any(|l| l.eq_ignore_ascii_case(location))
            || self
                .location_info
                .iter()
                .any(|l| l.location.eq_ignore_ascii_case(location))
    }

    /// Zones the size exists in, in `location` (empty: regional only).
    pub fn zones_in(&self, location: &str) -> Vec<String> {
        let mut z: Vec<String> = self
            .location_info
            .iter()
            .filter(|l| l.location.eq_ignore_ascii_case(location))
            .flat_map(|l| l.zones.iter().cloned())
            .collect();
        z.sort();
        z.dedup();
        z
    }

    /// Restrictions that apply in `location`.
    pub fn restrictions_in<'a>(
        &'a self,
        location: &'a str,
    ) -> impl Iterator<Item = &'a Restriction> + 'a {
        self.restrictions.iter().filter(move |r| {
            r.values.iter().any(|v| v.eq_ignore_ascii_case(location))
                || r.restriction_info
                    .as_ref()
                    .is_some_and(|i| i.locations.iter().any(|l| l.eq_ignore_ascii_case(location)))
                || (r.values.is_empty() && r.restriction_info.is_none())
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Compute usages (GET /subscriptions/{id}/providers/Microsoft.Compute/locations/{loc}/usages)

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub name: UsageName,
    #[serde(deserialize_with = "flexible_i64")]
    pub current_value: i64,
    #[serde(deserialize_with = "flexible_i64")]
    pub limit: i64,
    #[serde(default)]
    pub unit: Option<String>,
    /// Added by `az vm list-usage` (= `name.localizedValue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageName {
    #[serde(default, deserialize_with = "null_default")]
    pub value: String,
    #[serde(default)]
    pub localized_value: Option<String>,
}

impl Usage {
    /// The label people see in the portal ("Standard NCASv3_T4 Family vCPUs").
    pub fn label(&self) -> &str {
        self.name
            .localized_value
            .as_deref()
            .or(self.local_name.as_deref())
            .unwrap_or(&self.name.value)
    }
}

/// Case- and whitespace-insensitive form of a quota name (the fallback match).
pub fn normalise_quota_name(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Find a usage by `name.value`: exact first, then normalised.
pub fn find_usage<'a>(usages: &'a [Usage], name: &str) -> Option<(&'a Usage, bool)> {
    if let Some(u) = usages.iter().find(|u| u.name.value == name) {
        return Some((u, true));
    }
    let n = normalise_quota_name(name);
    usages
        .iter()
        .find(|u| normalise_quota_name(&u.name.value) == n)
        .map(|u| (u, false))
}

// ---------------------------------------------------------------------------------------------
// Smaller answers

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NameAvailability {
    pub name_available: bool,
    /// `AlreadyExists` or `AccountNameInvalid`.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// A soft-deleted key vault (`GET .../providers/Microsoft.KeyVault/deletedVaults`, api
/// 2024-11-01): its name stays reserved until `scheduledPurgeDate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletedVault {
    /// `/subscriptions/{id}/providers/Microsoft.KeyVault/locations/{l}/deletedVaults/{name}`.
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub properties: DeletedVaultProperties,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletedVaultProperties {
    /// The id of the vault before it was deleted (names its resource group).
    #[serde(default)]
    pub vault_id: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    pub deletion_date: Option<String>,
    #[serde(default)]
    pub scheduled_purge_date: Option<String>,
    #[serde(default)]
    pub purge_protection_enabled: Option<bool>,
}

impl DeletedVault {
    /// Its name: `name`, or the last segment of `id` (Azure sets both).
    pub fn vault_name(&self) -> &str {
        if self.name.is_empty() {
            self.id.rsplit('/').next().unwrap_or("")
        } else {
            &self.name
        }
    }

    /// The resource group the vault lived in, from `properties.vaultId`.
    pub fn resource_group(&self) -> Option<&str> {
        let id = self.properties.vault_id.as_deref()?;
        let mut it = id.split('/');
        while let Some(s) = it.next() {
            if s.eq_ignore_ascii_case("resourceGroups") {
                return it.next();
            }
        }
        None
    }
}

/// A resource found in the subscription (id + name + location).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceRef {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub location: Option<String>,
}

impl ResourceRef {
    /// The resource group segment of the id.
    pub fn resource_group(&self) -> Option<&str> {
        let mut it = self.id.split('/');
        while let Some(s) = it.next() {
            if s.eq_ignore_ascii_case("resourceGroups") {
                return it.next();
            }
        }
        None
    }
}

// ---------------------------------------------------------------------------------------------
// Offline input files

/// Which program produced a list file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ListShape {
    /// The REST response, `{"value": [...]}` (restricted SKUs included).
    Rest,
    /// `az ... -o json`: a bare array. For `az vm list-skus` without `--all`, SKUs restricted for
    /// the subscription are missing.
    AzCli,
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "expected a JSON array (az ... -o json) or an object with a \"value\" array (the REST response)"
    )]
    Shape,
    #[error("item {index}: {source}")]
    Item {
        index: usize,
        source: serde_json::Error,
    },
    /// A value no subscription can have (negative, fractional, beyond i64), or two entries for
    /// one quota that disagree.
    #[error("{0}")]
    Value(String),
}

fn items(text: &str) -> Result<(Vec<serde_json::Value>, ListShape), ParseError> {
    let v: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))?;
    match v {
        serde_json::Value::Array(a) => Ok((a, ListShape::AzCli)),
        serde_json::Value::Object(mut o) => match o.remove("value") {
            Some(serde_json::Value::Array(a)) => Ok((a, ListShape::Rest)),
            _ => Err(ParseError::Shape),
        },
        _ => Err(ParseError::Shape),
    }
}

fn typed<T: serde::de::DeserializeOwned>(
    items: Vec<serde_json::Value>,
) -> Result<Vec<T>, ParseError> {
    items
        .into_iter()
        .enumerate()
        .map(|(index, v)| {
            serde_json::from_value(v).map_err(|source| ParseError::Item { index, source })
        })
        .collect()
}

/// Read `az vm list-usage -l R -o json` output or a raw usages response.
///
/// A usages file may come from anyone (a pull request, a hand edit): counts must be whole numbers
/// from 0 to i64::MAX (never saturated), and two entries for one quota must agree, since a later
/// lookup takes the first and a conflicting second could flip the verdict.
pub fn parse_usages(text: &str) -> Result<(Vec<Usage>, ListShape), ParseError> {
    let (items, shape) = items(text)?;
    for (i, item) in items.iter().enumerate() {
        for field in ["currentValue", "limit"] {
            if let Some(v) = item.get(field)
                && let Err(why) = usage_count(v)
            {
                let name = item
                    .pointer("/name/value")
                    .and_then(|n| n.as_str())
                    .unwrap_or("?");
                return Err(ParseError::Value(format!(
                    "item {i} (`{name}`): {field} {v} {why}"
                )));
            }
        }
    }
    let list: Vec<Usage> = typed(items)?;
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, u) in list.iter().enumerate() {
        if u.name.value.is_empty() {
            continue;
        }
        match seen.entry(u.name.value.to_ascii_lowercase()) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let j = *e.get();
                let first = &list[j];
                if (first.current_value, first.limit) != (u.current_value, u.limit) {
                    return Err(ParseError::Value(format!(
                        "items {j} and {i} both give the quota `{}`, with different values ({} of {} and {} of {}); which one is the subscription's?",
                        u.name.value, first.current_value, first.limit, u.current_value, u.limit
                    )));
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
        }
    }
    Ok((list, shape))
}

/// Why `v` is not a usage count (a whole number 0..=i64::MAX, as a JSON number or a string).
fn usage_count(v: &serde_json::Value) -> Result<(), &'static str> {
    let parsed: Option<f64> = match v {
        serde_json::Value::Number(n) => {
            if n.as_i64().is_some_and(|i| i >= 0) {
                return Ok(());
            }
            n.as_f64()
        }
        serde_json::Value::String(s) => {
            if s.trim().parse::<i64>().is_ok_and(|i| i >= 0) {
                return Ok(());
            }
            s.trim().parse::<f64>().ok()
        }
        _ => return Err("is not a number"),
    };
    match parsed {
        None => Err("is not a number"),
        Some(f) if f < 0.0 => Err("is negative; usage counts and limits are 0 or more"),
        Some(f) if !f.is_finite() || f >= 9.223_372_036_854_776e18 => {
            Err("is beyond the largest count gpuform reads (i64::MAX)")
        }
        Some(f) if f.fract() != 0.0 => Err("is not a whole number"),
        Some(_) => Ok(()),
    }
}

/// Read `az vm list-skus [-l R] [--all] -o json` output or a raw Resource SKUs response.
///
/// Two different entries for one VM size in one location are refused: lookups take the first,
/// and a conflicting second (another restriction, other zones) could flip the verdict. (Other
/// resource types legitimately repeat a name per tier, e.g. disk SKUs.)
pub fn parse_skus(text: &str) -> Result<(Vec<ResourceSku>, ListShape), ParseError> {
    let (items, shape) = items(text)?;
    let list: Vec<ResourceSku> = typed(items)?;
    let mut seen: std::collections::HashMap<(String, String), usize> =
        std::collections::HashMap::new();
    for (i, s) in list.iter().enumerate() {
        if !s.is_vm() {
            continue;
        }
        for loc in &s.locations {
            let key = (s.name.to_ascii_lowercase(), loc.to_ascii_lowercase());
            match seen.get(&key) {
                Some(&j) if list[j] != *s => {
                    return Err(ParseError::Value(format!(
                        "items {j} and {i} both describe {} in {loc}, differently; which one is the subscription's?",
                        s.name
                    )));
                }
                Some(_) => {}
                None => {
                    seen.insert(key, i);
                }
            }
        }
    }
    Ok((list, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usages_parse_from_az_strings_and_rest_numbers() {
        let az = r#"[{"currentValue":"9","limit":"100","localName":"Total Regional vCPUs","name":{"localizedValue":"Total Regional vCPUs","value":"cores"},"unit":"Count"}]"#;
        let (u, shape) = parse_usages(az).unwrap();
        assert_eq!(shape, ListShape::AzCli);
        assert_eq!((u[0].current_value, u[0].limit), (9, 100));
        let rest = r#"{"value":[{"currentValue":0,"limit":4294967295,"name":{"value":"Standard NCASv3_T4 Family","localizedValue":"Standard NCASv3_T4 Family vCPUs"},"unit":"Count"}]}"#;
        let (u, shape) = parse_usages(rest).unwrap();
        assert_eq!(shape, ListShape::Rest);
        assert_eq!(u[0].limit, 4294967295);
        assert_eq!(u[0].label(), "Standard NCASv3_T4 Family vCPUs");
        assert!(parse_usages(r#"{"values":[]}"#).is_err());
        let e = parse_usages(r#"[{"currentValue":"x","limit":"1","name":{"value":"cores"}}]"#)
            .unwrap_err();
        assert!(e.to_string().starts_with("item 0"), "{e}");
    }

    #[test]
    fn conflicting_vm_sku_entries_are_refused() {
        let vm = |zones: &str| {
            format!(
                r#"{{"resourceType":"virtualMachines","name":"Standard_NC8as_T4_v3","locations":["eastus2"],"locationInfo":[{{"location":"eastus2","zones":[{zones}]}}]}}"#
            )
        };
        let same = format!("[{}, {}]", vm(r#""1""#), vm(r#""1""#));
        assert_eq!(parse_skus(&same).unwrap().0.len(), 2);
        let differ = format!("[{}, {}]", vm(r#""1""#), vm(r#""1","2""#));
        let e = parse_skus(&differ).unwrap_err().to_string();
        assert!(
            e.contains("items 0 and 1 both describe Standard_NC8as_T4_v3 in eastus2"),
            "{e}"
        );
        // disks repeat a name per size: not a conflict
        let disks = r#"[{"resourceType":"disks","name":"Premium_LRS","size":"P1","locations":["eastus2"]},{"resourceType":"disks","name":"Premium_LRS","size":"P2","locations":["eastus2"]}]"#;
        assert!(parse_skus(disks).is_ok());
    }

    #[test]
    fn usages_from_other_people_are_refused_rather_than_saturated_or_first_wins() {
        let item = |v: &str, cur: &str, lim: &str| {
            format!(r#"{{"currentValue":{cur},"limit":{lim},"name":{{"value":"{v}"}}}}"#)
        };
        for (cur, lim, why) in [
            ("-1", "10", "negative"),
            ("0", "-5", "negative"),
            ("\"-3\"", "10", "negative"),
            ("0", "9223372036854775808", "i64::MAX"),
            ("0", "1e300", "i64::MAX"),
            ("0", "\"1e30\"", "i64::MAX"),
            ("1.5", "10", "whole"),
        ] {
            let text = format!("[{}, {}]", item("cores", "1", "10"), item("fam", cur, lim));
            let e = parse_usages(&text).unwrap_err().to_string();
            assert!(e.starts_with("item 1 (`fam`)"), "{e}");
            assert!(e.contains(why), "{cur} {lim}: {e}");
        }
        // the largest value itself is fine, and agreeing duplicates too
        let ok = format!(
            "[{}, {}]",
            item("fam", "0", "9223372036854775807"),
            item("FAM", "0", "\"9223372036854775807\"")
        );
        assert_eq!(parse_usages(&ok).unwrap().0[1].limit, i64::MAX);
        let conflict = format!("[{}, {}]", item("fam", "0", "100"), item("fam", "0", "8"));
        let e = parse_usages(&conflict).unwrap_err().to_string();
        assert!(e.contains("items 0 and 1") && e.contains("`fam`"), "{e}");
    }

    #[test]
    fn usage_lookup_is_exact_then_normalised() {
        let mk = |v: &str| Usage {
            name: UsageName {
                value: v.into(),
                localized_value: None,
            },
            ..Default::default()
        };
        let list = vec![
            mk("standardNCASv3_T4Family"),
            mk("Standard NCASv3_T4 Family"),
        ];
        assert_eq!(
            find_usage(&list, "Standard NCASv3_T4 Family")
                .map(|(u, exact)| (u.name.value.as_str(), exact)),
            Some(("Standard NCASv3_T4 Family", true))
        );
        let list = vec![mk("standard ncasv3_t4 family")];
        assert_eq!(
            find_usage(&list, "Standard NCASv3_T4 Family").map(|(_, exact)| exact),
            Some(false)
        );
        assert!(find_usage(&list, "StandardNCADSA100v4Family").is_none());
    }

    #[test]
    fn az_sku_nulls_are_tolerated() {
        let az = r#"[{"apiVersions":null,"capabilities":[{"name":"EncryptionAtHostSupported","value":"True"}],"capacity":null,"family":"Standard NCASv3_T4 Family","locationInfo":[{"location":"southcentralus","zones":["1","3","2"],"zoneDetails":[]}],"locations":["southcentralus"],"name":"Standard_NC16as_T4_v3","resourceType":"virtualMachines","restrictions":null,"size":"NC16as_T4_v3","tier":"Standard"}]"#;
        let (s, shape) = parse_skus(az).unwrap();
        assert_eq!(shape, ListShape::AzCli);
        assert!(s[0].is_vm());
        assert_eq!(s[0].zones_in("SouthCentralUS"), vec!["1", "2", "3"]);
        assert_eq!(
            s[0].capability_bool("encryptionAtHostSupported"),
            Some(true)
        );
        assert_eq!(s[0].capability_bool("LowPriorityCapable"), None);
        assert!(s[0].restrictions.is_empty());
    }

    #[test]
    fn resource_group_from_id() {
        let r = ResourceRef {
            id: "/subscriptions/s/resourceGroups/rg-a/providers/Microsoft.KeyVault/vaults/kv"
                .into(),
            name: "kv".into(),
            location: None,
        };
        assert_eq!(r.resource_group(), Some("rg-a"));
    }
}
