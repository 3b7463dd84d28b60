"""Monthly revenue per region from data/sales.csv."""
import csv
from collections import defaultdict


def revenue_by_region(path="data/sales.csv"):
    totals = defaultdict(float)
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            totals[row["region"]] += int(row["units"]) * float(row["unit_price_eur"])
    return dict(sorted(totals.items()))


if __name__ == "__main__":
    for region, total in revenue_by_region().items():
        print(f"{region}: {total:.2f} EUR")
