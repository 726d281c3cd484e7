//! Hidesets: the sets of macro names a token must not be expanded by again.
//!
//! Sets are tiny (the macros on one expansion path) and shared by many tokens, so they are
//! sorted slices behind an `Rc`; the empty set, by far the most common, allocates nothing.

use std::rc::Rc;

/// A set of macro symbols (see `Preprocessor::symbols`).
#[derive(Clone, Debug, Default)]
pub(super) struct HideSet(Option<Rc<[u32]>>);

impl HideSet {
    fn items(&self) -> &[u32] {
        self.0.as_deref().unwrap_or(&[])
    }

    fn from_sorted(items: Vec<u32>) -> HideSet {
        if items.is_empty() {
            HideSet(None)
        } else {
            HideSet(Some(items.into()))
        }
    }

    pub(super) fn contains(&self, symbol: u32) -> bool {
        self.items().binary_search(&symbol).is_ok()
    }

    /// The same set object (not just equal): lets callers reuse a union computed for the
    /// previous token, which almost always has the same hideset.
    pub(super) fn same(&self, other: &HideSet) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    pub(super) fn with(&self, symbol: u32) -> HideSet {
        if self.contains(symbol) {
            return self.clone();
        }
        let mut items = self.items().to_vec();
        let at = items.partition_point(|&s| s < symbol);
        items.insert(at, symbol);
        HideSet::from_sorted(items)
    }

    pub(super) fn union(&self, other: &HideSet) -> HideSet {
        if other.items().is_empty() || self.same(other) {
            return self.clone();
        }
        if self.items().is_empty() {
            return other.clone();
        }
        let (a, b) = (self.items(), other.items());
        let mut items = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => {
                    items.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    items.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    items.push(a[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        items.extend_from_slice(&a[i..]);
        items.extend_from_slice(&b[j..]);
        HideSet::from_sorted(items)
    }

    pub(super) fn intersection(&self, other: &HideSet) -> HideSet {
        if self.same(other) {
            return self.clone();
        }
        let b = other.items();
        HideSet::from_sorted(
            self.items()
                .iter()
                .copied()
                .filter(|s| b.binary_search(s).is_ok())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let a = HideSet::default().with(3).with(1).with(3);
        let b = HideSet::default().with(2).with(3);
        assert_eq!(a.items(), [1, 3]);
        assert_eq!(a.union(&b).items(), [1, 2, 3]);
        assert_eq!(a.intersection(&b).items(), [3]);
        assert!(a.intersection(&HideSet::default()).items().is_empty());
        assert!(a.contains(1) && !a.contains(2));
    }
}
