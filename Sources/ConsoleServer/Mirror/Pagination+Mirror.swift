import BookCornersAPI

extension Pagination {
    /// The backend's pagination for `total` mirrored items: a page past the last one shows the
    /// last one, as the backend answers it, so links and counts read as they always did.
    static func mirrored(_ page: Page, total: Int) -> Pagination {
        let totalPages = max(1, (total + page.size - 1) / page.size)
        let number = min(page.number, totalPages)
        return Pagination(
            page: number, pageSize: page.size, total: total, totalPages: totalPages, hasNext: number < totalPages,
            hasPrevious: number > 1)
    }

    /// The offset of the page `mirrored(_:total:)` answers.
    static func mirroredOffset(_ page: Page, total: Int) -> Int {
        (mirrored(page, total: total).page - 1) * page.size
    }
}
