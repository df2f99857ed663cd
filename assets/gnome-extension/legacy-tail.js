
function init() {
    return new TreeglassService();
}
