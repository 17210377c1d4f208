// A menu as the menu tools return it.
import type { MenuRecord } from "../store/drafts";

export type { MenuSectionRecord as MenuSection } from "../store/drafts";

export function publicMenu(menu: MenuRecord) {
  return {
    menuId: menu.menuId,
    name: menu.name,
    description: menu.description,
    locationId: menu.locationId,
    status: menu.status,
    sections: menu.sections,
    itemCount: menu.sections.reduce((n, s) => n + s.items.length, 0),
    createdAt: menu.createdAt.toISOString(),
    updatedAt: menu.updatedAt.toISOString(),
  };
}
