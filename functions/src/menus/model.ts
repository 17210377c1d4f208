// Menu shape returned by the menu tools.
interface MenuItem {
  itemId: string;
  name: string;
  description: string | null;
  price: number | null;
}

export interface MenuSection {
  name: string;
  items: MenuItem[];
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

export function publicMenu(menu: Record<string, unknown>) {
  const sections = (menu.sections as MenuSection[]) ?? [];
  return {
    menuId: menu.menuId as string,
    name: menu.name as string,
    description: (menu.description as string | null) ?? null,
    locationId: (menu.locationId as string | null) ?? null,
    status: menu.status as "draft" | "published",
    sections,
    itemCount: sections.reduce((n, s) => n + s.items.length, 0),
    createdAt: iso(menu.createdAt),
    updatedAt: iso(menu.updatedAt),
  };
}
