//! The assignment of a job's units to its shards: deterministic (it depends only on the job),
//! so every machine computes the same split without talking to the others, and balanced by the
//! estimated cost of the units ([`crate::Plan::costs`]): greedy longest-processing-time first —
//! units by falling estimate (ties by index), each to the least-loaded shard (ties to the lowest
//! shard). Graham (1969) bounds its makespan by 4/3 of the best possible for exact costs.

/// Splits units with estimated `costs` (by unit index) into `shards` parts: the unit indices of
/// each part, in falling order of cost (the order to start them in).
pub fn assign(costs: &[u64], shards: u32) -> Vec<Vec<u32>> {
    let shards = shards.max(1) as usize;
    let mut order: Vec<u32> = (0..costs.len() as u32).collect();
    order.sort_by(|&a, &b| costs[b as usize].cmp(&costs[a as usize]).then(a.cmp(&b)));
    let mut parts = vec![Vec::new(); shards];
    // A min-heap of (load, shard): the least-loaded shard, the lowest on ties.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    for i in order {
        let std::cmp::Reverse((load, s)) = heap.pop().expect("at least one shard");
        parts[s].push(i);
        heap.push(std::cmp::Reverse((load + u128::from(costs[i as usize]), s)));
    }
    parts
}

/// [`assign`]'s parts, each ascending: the units a file of each shard must hold.
pub(crate) fn assigned(costs: &[u64], shards: u32) -> Vec<Vec<u32>> {
    let mut parts = assign(costs, shards);
    for p in &mut parts {
        p.sort_unstable();
    }
    parts
}

/// The estimated imbalance of a split: the largest part's estimated cost over the mean, minus
/// one (0 is perfect balance; 0.1 means the slowest shard is expected to take 10 % longer than
/// the average).
pub fn imbalance(costs: &[u64], parts: &[Vec<u32>]) -> f64 {
    let loads: Vec<f64> = parts
        .iter()
        .map(|p| p.iter().map(|&i| costs[i as usize] as f64).sum())
        .collect();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let max = loads.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean - 1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_is_a_balanced_partition() {
        let costs = [5u64, 1, 9, 3, 3, 7, 2, 8];
        let parts = assign(&costs, 3);
        let mut all: Vec<u32> = parts.concat();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        // LPT: 9->s0, 8->s1, 7->s2, 5->s2 (7 < 8 < 9)... loads end at 13, 13, 12 (total 38).
        let loads: Vec<u64> = parts
            .iter()
            .map(|p| p.iter().map(|&i| costs[i as usize]).sum())
            .collect();
        assert_eq!(loads, vec![13, 13, 12]);
        assert_eq!(parts[0], vec![2, 4, 1]);
        assert_eq!(parts, assign(&costs, 3));
        // Each part lists its units by falling cost; `assigned` sorts them.
        for p in &parts {
            assert!(p
                .windows(2)
                .all(|w| costs[w[0] as usize] >= costs[w[1] as usize]));
        }
        assert_eq!(assigned(&costs, 3)[0], vec![1, 2, 4]);
        assert!((imbalance(&costs, &parts) - (13.0 / (38.0 / 3.0) - 1.0)).abs() < 1e-12);
        // More shards than units: some shards are empty, none is lost.
        let parts = assign(&[1, 1], 4);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), 2);
        assert_eq!(imbalance(&[0, 0], &[vec![0], vec![1]]), 0.0);
    }
}
