//! Explanations that stay one readable line in a large run: per-node facts listed one by one
//! for a few nodes, grouped by fact (node ids as ranges) past [`LISTED_MAX`].

use sincro_harness::NodeId;

/// Nodes listed one by one in an explanation; past this, nodes with the same fact are grouped.
pub const LISTED_MAX: usize = 8;

/// `facts` (node, fact), in node order, as one line. Up to [`LISTED_MAX`] nodes, each with
/// `one(node, fact)`, joined by `", "`; past that, one entry per distinct fact (in order of
/// first appearance) with `many(ranges, count, fact)`, joined by `"; "`, where `ranges` is
/// `prefix`-ed ids as runs (`n0-n3, n7`).
pub fn describe(
    facts: &[(NodeId, String)],
    prefix: &str,
    one: impl Fn(NodeId, &str) -> String,
    many: impl Fn(&str, usize, &str) -> String,
) -> String {
    if facts.len() <= LISTED_MAX {
        let each: Vec<String> = facts.iter().map(|(v, f)| one(*v, f)).collect();
        return each.join(", ");
    }
    let mut groups: Vec<(&str, Vec<NodeId>)> = Vec::new();
    for (v, f) in facts {
        match groups.iter_mut().find(|(g, _)| *g == f.as_str()) {
            Some((_, nodes)) => nodes.push(*v),
            None => groups.push((f, vec![*v])),
        }
    }
    let each: Vec<String> = groups
        .iter()
        .map(|(f, nodes)| match nodes.as_slice() {
            [v] => one(*v, f),
            _ => many(&ranges(nodes, prefix), nodes.len(), f),
        })
        .collect();
    each.join("; ")
}

/// `n0-n3, n7, n9-n10` for ascending node ids (with `prefix` "n").
pub fn ranges(nodes: &[NodeId], prefix: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let mut j = i;
        while j + 1 < nodes.len() && nodes[j + 1] == nodes[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            format!("{prefix}{}", nodes[i])
        } else {
            format!("{prefix}{}-{prefix}{}", nodes[i], nodes[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// `items` joined by `sep`, whole up to `2 ×` [`LISTED_MAX`] items; past that the first
/// [`LISTED_MAX`], how many are left out, and the last two (a long chain keeps its start and
/// where it ends): `n0 -> n1 -> … -> n7 -> … 488 more … -> n498 -> n499`.
pub fn elide(items: &[String], sep: &str) -> String {
    if items.len() <= 2 * LISTED_MAX {
        return items.join(sep);
    }
    let tail = &items[items.len() - 2..];
    let left_out = items.len() - LISTED_MAX - tail.len();
    let mut shown: Vec<&str> = items[..LISTED_MAX].iter().map(String::as_str).collect();
    let gap = format!("… {left_out} more …");
    shown.push(&gap);
    shown.extend(tail.iter().map(String::as_str));
    shown.join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elide_keeps_short_lists_whole_and_the_ends_of_long_ones() {
        let items = |n: usize| -> Vec<String> { (0..n).map(|i| format!("n{i}")).collect() };
        assert_eq!(elide(&items(3), " -> "), "n0 -> n1 -> n2");
        assert_eq!(elide(&items(16), ", ").matches(", ").count(), 15);
        assert_eq!(
            elide(&items(500), " -> "),
            "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> … 490 more … -> n498 -> n499"
        );
        assert_eq!(elide(&[], ", "), "");
    }

    #[test]
    fn ranges_join_consecutive_ids() {
        assert_eq!(ranges(&[0, 1, 2, 3, 7, 9, 10], "n"), "n0-n3, n7, n9-n10");
        assert_eq!(ranges(&[4], ""), "4");
        assert_eq!(ranges(&[], "n"), "");
    }
}
