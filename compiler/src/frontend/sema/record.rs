//! Struct and union members, anonymous ones included: C11 6.7.2.1p13, "the members of an
//! anonymous structure or union are considered to be members of the containing structure
//! or union", so `s.a` reaches `a` inside `struct { union { int a; float b; }; int c; } s`
//! through a path of fields.

use std::sync::Arc;

use super::super::types::{Record, Type};

/// The name an anonymous member has in its record's field list: no identifier spells it, so
/// no member access or designator can name it directly.
pub(super) const ANONYMOUS: &str = "";

/// The field indices that lead from `r` to its member `name` (one index for a direct member,
/// more through anonymous members); `None` if `r` has no such member.
pub(super) fn member_path(r: &Record, name: &str) -> Option<Vec<u32>> {
    if name == ANONYMOUS {
        return None;
    }
    for (i, f) in r.fields.iter().enumerate() {
        if &*f.name == name {
            return Some(vec![i as u32]);
        }
        if &*f.name == ANONYMOUS
            && let Type::Record(inner) = &f.ty.ty
            && let Some(mut path) = member_path(inner, name)
        {
            path.insert(0, i as u32);
            return Some(path);
        }
    }
    None
}

/// The names a member declared as `(name, ty)` makes visible in its record: its own, or
/// for an anonymous record member, the names of that record's members (recursively).
pub(super) fn visible_names(name: &Arc<str>, ty: &Type) -> Vec<Arc<str>> {
    match ty {
        Type::Record(inner) if &**name == ANONYMOUS => inner
            .fields
            .iter()
            .flat_map(|f| visible_names(&f.name, &f.ty.ty))
            .collect(),
        _ => vec![Arc::clone(name)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::types::{QualType, Scalar};

    fn record(is_union: bool, members: Vec<(&str, Type)>) -> Arc<Record> {
        let members = members
            .into_iter()
            .map(|(n, t)| (Arc::from(n), QualType::new(t)))
            .collect();
        Arc::new(Record::layout(None, is_union, members, false, 1))
    }

    #[test]
    fn paths_go_through_anonymous_members() {
        // struct { int x; union { int a; struct { float b; int c; }; }; int d; }
        let inner = record(
            false,
            vec![
                ("b", Type::Scalar(Scalar::Float)),
                ("c", Type::Scalar(Scalar::Int)),
            ],
        );
        let union = record(
            true,
            vec![
                ("a", Type::Scalar(Scalar::Int)),
                (ANONYMOUS, Type::Record(inner)),
            ],
        );
        let outer = record(
            false,
            vec![
                ("x", Type::Scalar(Scalar::Int)),
                (ANONYMOUS, Type::Record(Arc::clone(&union))),
                ("d", Type::Scalar(Scalar::Int)),
            ],
        );
        assert_eq!(member_path(&outer, "x"), Some(vec![0]));
        assert_eq!(member_path(&outer, "a"), Some(vec![1, 0]));
        assert_eq!(member_path(&outer, "c"), Some(vec![1, 1, 1]));
        assert_eq!(member_path(&outer, "d"), Some(vec![2]));
        assert_eq!(member_path(&outer, "e"), None);
        assert_eq!(member_path(&outer, ANONYMOUS), None);
        let names = visible_names(&Arc::from(ANONYMOUS), &Type::Record(union));
        assert_eq!(names, [Arc::from("a"), Arc::from("b"), Arc::from("c")]);
    }
}
