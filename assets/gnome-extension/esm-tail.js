
export default class TreeglassExtension extends Extension {
    enable() {
        this._service = new TreeglassService();
        this._service.enable();
    }

    disable() {
        this._service.disable();
        this._service = null;
    }
}
