// Stock levels per SKU and the reorder rule the shop uses.
export interface StockItem {
  sku: string;
  name: string;
  onHand: number;
  reorderPoint: number;
}

export const STOCK: StockItem[] = [
  { sku: 'BK-100', name: 'City e-bike', onHand: 4, reorderPoint: 5 },
  { sku: 'BK-220', name: 'Cargo e-bike', onHand: 7, reorderPoint: 3 },
  { sku: 'HL-010', name: 'Helmet, reflective', onHand: 40, reorderPoint: 25 },
  { sku: 'BT-500', name: '500 Wh spare battery', onHand: 2, reorderPoint: 6 },
];

// TODO: reorder quantities should depend on the season (winter tyres in October).
export function itemsToReorder(stock: StockItem[] = STOCK): StockItem[] {
  return stock.filter((item) => item.onHand <= item.reorderPoint);
}
